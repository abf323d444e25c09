import Foundation
import Testing

@testable import OnAirPayload

/// Packets from libopus (through ffmpeg, in Ogg), with the durations FFmpeg's Ogg demuxer
/// gives them as the reference.
@Suite("Opus packets from libopus")
struct OpusLibopusTests {
    struct EncoderCase: Sendable, CustomTestStringConvertible {
        var frameDuration: String
        var application: String
        var bitrate: String
        var channels: Int
        var expectedModes: Set<OpusTOC.Mode>
        var testDescription: String { "\(frameDuration) ms \(application) \(bitrate) \(channels) ch" }
    }

    static let cases: [EncoderCase] = [
        EncoderCase(frameDuration: "2.5", application: "lowdelay", bitrate: "96k", channels: 2, expectedModes: [.celt]),
        EncoderCase(frameDuration: "5", application: "lowdelay", bitrate: "64k", channels: 1, expectedModes: [.celt]),
        EncoderCase(frameDuration: "10", application: "audio", bitrate: "64k", channels: 2, expectedModes: [.silk, .hybrid, .celt]),
        EncoderCase(frameDuration: "20", application: "audio", bitrate: "128k", channels: 2, expectedModes: [.silk, .hybrid, .celt]),
        EncoderCase(frameDuration: "40", application: "voip", bitrate: "8k", channels: 1, expectedModes: [.silk]),
        EncoderCase(frameDuration: "60", application: "voip", bitrate: "12k", channels: 1, expectedModes: [.silk, .hybrid]),
        EncoderCase(frameDuration: "60", application: "audio", bitrate: "64k", channels: 2, expectedModes: [.silk, .hybrid, .celt]),
        EncoderCase(frameDuration: "120", application: "audio", bitrate: "48k", channels: 2, expectedModes: [.silk, .hybrid, .celt]),
    ]

    @Test("durations from the TOC match FFmpeg's", arguments: cases)
    func durations(_ c: EncoderCase) throws {
        let url = MediaTools.directory.appendingPathComponent("\(UUID().uuidString).ogg")
        try MediaTools.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                                      "-i", "sine=frequency=440:duration=2", "-ac", "\(c.channels)", "-c:a", "libopus",
                                      "-b:a", c.bitrate, "-application", c.application, "-frame_duration", c.frameDuration,
                                      url.path])
        let packets = try Self.packets(in: url)
        #expect(packets.count > 10)
        var mismatches = 0
        // The last packet's duration is trimmed by the Ogg end position, so it is left out.
        for (duration, data) in packets.dropLast() {
            let info = try OpusPacketInfo(packet: data)
            if info.durationSamples != duration { mismatches += 1 }
            if !c.expectedModes.contains(info.toc.mode) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// (duration, bytes) of each packet, from `ffprobe -show_packets -show_data`.
    static func packets(in url: URL) throws -> [(Int, [UInt8])] {
        let output = try MediaTools.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_packets", "-show_data", url.path]).stdout
        var packets: [(Int, [UInt8])] = []
        var duration: Int?
        var data: [UInt8] = []
        var inData = false
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "[PACKET]" {
                duration = nil
                data = []
                inData = false
            } else if line.hasPrefix("duration=") {
                duration = Int(line.dropFirst("duration=".count))
            } else if line == "data=" {
                inData = true
            } else if line == "[/PACKET]" {
                if let duration { packets.append((duration, data)) }
                inData = false
            } else if inData, let colon = line.firstIndex(of: ":") {
                // "00000000: ff83 fc0f ...  ascii": hex groups end at the first double space.
                let rest = line[line.index(colon, offsetBy: 2)...]
                let hexPart = rest.components(separatedBy: "  ").first ?? ""
                data += hex(hexPart)
            }
        }
        return packets
    }
}
