import Foundation
import OnAirHLS

/// Real H.264 and AAC made by ffmpeg (libx264 Baseline 4:2:0 — testsrc is RGB, which
/// Baseline cannot carry — 640x360 at 30 fps with an IDR
/// every 30 frames and no B-frames; AAC-LC 48 kHz), split into what the relay would hand
/// the packager. Generated once per test run.
struct TestMedia: Sendable {
    struct Picture: Sendable {
        var avcc: [UInt8]
        var isKeyframe: Bool
    }

    var pictures: [Picture]
    /// The access units' NAL units, for the OnAirPayload bridge.
    var pictureNALUnits: [[[UInt8]]]
    var sps: [UInt8]
    var pps: [UInt8]
    var avcDecoderConfigurationRecord: [UInt8]
    var audioFrames: [[UInt8]]
    var audioConfig: AudioSpecificConfig

    static let seconds = 4
    static let width: UInt16 = 640
    static let height: UInt16 = 360
    /// The media clock of the first frame (an arbitrary epoch, as RTP would have).
    static let videoStart: Int64 = 90_000 * 1000
    static let audioStart: Int64 = 48_000 * 1000

    static let shared: Result<TestMedia, TestMediaError> = generate()

    struct TestMediaError: Error, CustomStringConvertible {
        var description: String
    }

    static func generate() -> Result<TestMedia, TestMediaError> {
        do {
            let directory = try makeTemporaryDirectory("media")
            defer { try? FileManager.default.removeItem(at: directory) }
            let h264 = directory.appendingPathComponent("out.h264").path
            let aac = directory.appendingPathComponent("out.aac").path
            let video = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30",
                                           "-t", "\(seconds)", "-c:v", "libx264", "-profile:v", "baseline",
                                           "-pix_fmt", "yuv420p", "-g", "30", "-bf", "0", "-bsf:v", "h264_mp4toannexb", "-f", "h264", h264])
            guard video.status == 0 else { return .failure(TestMediaError(description: "ffmpeg h264: \(video.stderr)")) }
            let audio = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                           "-t", "\(seconds)", "-c:a", "aac", "-f", "adts", aac])
            guard audio.status == 0 else { return .failure(TestMediaError(description: "ffmpeg aac: \(audio.stderr)")) }
            let stream = AnnexBStream([UInt8](try Data(contentsOf: URL(fileURLWithPath: h264))))
            let adts = ADTSStream([UInt8](try Data(contentsOf: URL(fileURLWithPath: aac))))
            guard let record = stream.avcDecoderConfigurationRecord, let sps = stream.sps, let pps = stream.pps,
                  let config = adts.config else {
                return .failure(TestMediaError(description: "no SPS/PPS or no ADTS header"))
            }
            let units = stream.accessUnits
            return .success(TestMedia(
                pictures: units.map { Picture(avcc: $0.avcc, isKeyframe: $0.isKeyframe) },
                pictureNALUnits: units.map(\.nalUnits), sps: sps, pps: pps,
                avcDecoderConfigurationRecord: record, audioFrames: adts.frames, audioConfig: config))
        } catch {
            return .failure(TestMediaError(description: "\(error)"))
        }
    }

    func trackConfiguration(audio withAudio: Bool = true) throws -> HLSTrackConfiguration {
        try HLSTrackConfiguration(
            video: AVCSampleEntry(width: Self.width, height: Self.height, decoderConfiguration: avcDecoderConfigurationRecord),
            audio: withAudio ? audioConfig : nil)
    }

    /// Feeds every picture and audio frame in timestamp order, as the relay would, and
    /// returns the events.
    func feed(_ packager: inout LLHLSPackager, audio withAudio: Bool = true,
              missingVideo: Range<Int> = 0..<0) throws -> [LLHLSPackager.Event] {
        var events: [LLHLSPackager.Event] = []
        var videoIndex = 0
        var audioIndex = 0
        let audioCount = withAudio ? audioFrames.count : 0
        while videoIndex < pictures.count || audioIndex < audioCount {
            // Compare times exactly: video i at i/30 s, audio j at j*1024/48000 s.
            let videoFirst = audioIndex >= audioCount
                || (videoIndex < pictures.count && videoIndex * 48000 <= audioIndex * 1024 * 30)
            if videoFirst {
                let picture = pictures[videoIndex]
                if !missingVideo.contains(videoIndex) { events += try packager.append(VideoAccessUnit(
                    data: picture.avcc, timestamp: Self.videoStart + Int64(videoIndex) * 3000,
                    isKeyframe: picture.isKeyframe)) }
                videoIndex += 1
            } else {
                events += try packager.append(AudioFrame(
                    data: audioFrames[audioIndex], timestamp: Self.audioStart + Int64(audioIndex) * 1024))
                audioIndex += 1
            }
        }
        return events
    }
}
