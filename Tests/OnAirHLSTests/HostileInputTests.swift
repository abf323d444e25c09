import OnAirWire
import Testing

@testable import OnAirHLS

/// Everything here reads bytes or text a stranger controls; none of it may trap.
@Suite("Hostile input")
struct HostileInputTests {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func audioSpecificConfigNeverTraps() {
        var random = SplitMix64(state: 1)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if let config = try? AudioSpecificConfig(parsing: bytes) {
                #expect(config.sampleRate > 0)
                #expect((try? AudioSpecificConfig(parsing: config.bytes)) == config)
            }
        }
    }

    @Test func avcRecordsNeverTrap() {
        var random = SplitMix64(state: 2)
        for _ in 0..<5_000 {
            var bytes = (0..<Int.random(in: 0...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if !bytes.isEmpty, Bool.random(using: &random) { bytes[0] = 1 }
            if let entry = try? AVCSampleEntry(width: 16, height: 16, decoderConfiguration: bytes) {
                #expect(entry.codecString.hasPrefix("avc1."))
                #expect(!entry.serialized().isEmpty)
            }
        }
    }

    @Test func namesAndDirectivesNeverTrap() {
        var random = SplitMix64(state: 3)
        let alphabet = Array("part seg0123456789.m4s-+_/%?&=١\u{0}".unicodeScalars)
        let names = HLSResourceNames()
        let progress = PlaylistProgress(lastMediaSequence: 3, lastPart: PartPosition(mediaSequence: 4, index: 1),
                                        hasEndList: false, partTarget: .milliseconds(333))
        for _ in 0..<20_000 {
            let text = String(String.UnicodeScalarView((0..<Int.random(in: 0...24, using: &random))
                .map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }))
            _ = names.resource(named: text)
            let request = PlaylistRequest(msn: Bool.random(using: &random) ? text : nil,
                                          part: Bool.random(using: &random) ? text : nil, skip: text)
            _ = progress.decide(request)
        }
    }
}
