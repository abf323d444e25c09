@testable import OnAirHLS

/// Test helper: a made-up 30 frames/s H.264 stream (fake AVCC samples whose sizes vary)
/// with chosen IDR frames, and optionally 48 kHz AAC frames, fed in timestamp order.
struct SyntheticStream {
    static let videoEpoch: Int64 = 90_000 * 50
    static let audioEpoch: Int64 = 48_000 * 50
    static let record = hex("01 42c01e ffe1 0000 01 0000")

    var isKeyframe: (Int) -> Bool
    var withAudio: Bool
    /// Video frames that never arrive (audio still does).
    var missingVideo: Range<Int> = 0..<0
    private(set) var nextAudio = 0

    init(keyframeEvery: Int = 60, withAudio: Bool = true) {
        self.isKeyframe = { $0 % keyframeEvery == 0 }
        self.withAudio = withAudio
    }

    init(keyframes: Set<Int>, withAudio: Bool = true) {
        self.isKeyframe = { keyframes.contains($0) }
        self.withAudio = withAudio
    }

    static func tracks(audio: Bool = true) throws -> HLSTrackConfiguration {
        try HLSTrackConfiguration(video: AVCSampleEntry(width: 1280, height: 720, decoderConfiguration: record),
                                  audio: audio ? AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 2) : nil)
    }

    static func packager(_ configuration: LLHLSConfiguration = LLHLSConfiguration(), audio: Bool = true) throws -> LLHLSPackager {
        try LLHLSPackager(configuration: configuration, tracks: tracks(audio: audio))
    }

    static func picture(_ index: Int, keyframe: Bool) -> VideoAccessUnit {
        let size = keyframe ? 4000 : 500 + index % 7 * 100
        var data: [UInt8] = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        data += [keyframe ? 0x65 : 0x41] + [UInt8](repeating: UInt8(index & 0xFF), count: size - 1)
        return VideoAccessUnit(data: data, timestamp: videoEpoch + Int64(index) * 3000, isKeyframe: keyframe)
    }

    /// Feeds video frame `index`, preceded by the audio frames that start before it.
    mutating func feedFrame(_ index: Int, to packager: inout LLHLSPackager) throws -> [LLHLSPackager.Event] {
        var events: [LLHLSPackager.Event] = []
        while withAudio, nextAudio * 1024 * 30 < index * 48_000 {
            events += try packager.append(AudioFrame(data: [UInt8](repeating: 0xA0, count: 20),
                                                     timestamp: Self.audioEpoch + Int64(nextAudio) * 1024))
            nextAudio += 1
        }
        if !missingVideo.contains(index) {
            events += try packager.append(Self.picture(index, keyframe: isKeyframe(index)))
        }
        return events
    }

    mutating func feed(_ frames: Range<Int>, to packager: inout LLHLSPackager) throws -> [LLHLSPackager.Event] {
        var events: [LLHLSPackager.Event] = []
        for index in frames { events += try feedFrame(index, to: &packager) }
        return events
    }
}

extension HLSPartialSegment {
    /// The part's fragment read back by the test's own box walker.
    func runs() throws -> [BoxWalker.Run] { try BoxWalker(Array(bytes)).runs(moofStart: 0) }
}
