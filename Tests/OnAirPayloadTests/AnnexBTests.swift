import Foundation
import OnAirWire
import Testing

@testable import OnAirPayload
import OnAirTestSupport

@Suite("Annex B and AVCC (H.264 §B.1, ISO/IEC 14496-15 §5.3.2)")
struct AnnexBTests {
    @Test("3- and 4-byte start codes, leading and trailing zeros, empty NAL units; emulation prevention kept")
    func split() {
        let stream = hex("00 00 00 00 01 67 aa 00 00 03 01 00 00 01 68 bb 00 00 00 00 01 00 00 01 65 cc 00 00")
        #expect(AnnexB.split(stream).map(Array.init) == [hex("67 aa 00 00 03 01"), hex("68 bb"), hex("65 cc")])
        #expect(AnnexB.nalUnitRanges(in: stream) == [5..<11, 14..<16, 24..<26])
        #expect(AnnexB.split(hex("67 42 00 1e")).isEmpty, "no start code, no NAL units")
        #expect(AnnexB.split(hex("00 00 01")).isEmpty)
        #expect(AnnexB.split([UInt8]()).isEmpty)
        #expect(AnnexB.split(hex("00 00 01 09 f0 00 00 01")).map(Array.init) == [hex("09 f0")])
    }

    @Test("join writes 4-byte start codes and split gives the NAL units back")
    func joinRoundTrip() {
        #expect(AnnexB.join([hex("67 01"), [], hex("68 02")]) == hex("00 00 00 01 67 01 00 00 00 01 68 02"))
        var rng = SplitMix64(seed: 21)
        for _ in 0..<300 {
            let nals = (0..<Int.random(in: 1...6, using: &rng)).map { _ -> [UInt8] in
                let rbsp = (0..<Int.random(in: 0...50, using: &rng)).map { _ in UInt8.random(in: 0...3, using: &rng) }
                return [UInt8.random(in: 1...0x7F, using: &rng)] + H264RBSP.escape(rbsp + [0x80])
            }
            #expect(AnnexB.split(AnnexB.join(nals)).map(Array.init) == nals)
        }
    }

    @Test("splitting an x264 stream at its AUDs gives the access units ffprobe finds, with the same keyframes")
    func matchesFFprobe() throws {
        let stream = try BulkStream.x264.get()
        let output = try MediaTools.run("ffprobe", ["-v", "error", "-show_entries", "packet=pos,size,flags",
                                                    "-of", "compact=p=0", stream.url.path]).stdout
        // "size=9063|pos=0|flags=K_": key order is ffprobe's, so read by key.
        let packets = output.split(separator: "\n").map { line in
            Dictionary(line.split(separator: "|").compactMap { field -> (String, String)? in
                let parts = field.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        }
        #expect(packets.count == stream.accessUnits.count)
        var mismatches = 0
        for (fields, unit) in zip(packets, stream.accessUnits) {
            guard let pos = fields["pos"].flatMap({ Int($0) }), let size = fields["size"].flatMap({ Int($0) }),
                  let flags = fields["flags"], pos + size <= stream.bytes.count else {
                mismatches += 1
                continue
            }
            let nals = AnnexB.split(Array(stream.bytes[pos..<pos + size])).map(Array.init)
            if nals != unit || flags.hasPrefix("K") != BulkStream.isIDR(unit) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("AVCC: 4-byte lengths by default, 1 and 2 on request; conversions both ways")
    func avcc() throws {
        let nals = [hex("67 42"), hex("68"), nalUnit(header: 0x65, count: 300)]
        let sample = AVCC.join(nals)
        #expect(Array(sample.prefix(9)) == hex("00 00 00 02 67 42 00 00 00"))
        #expect(try AVCC.split(sample).map(Array.init) == nals)
        #expect(try AVCC.split(hex("02 67 42 01 68"), lengthSize: 1).map(Array.init) == [hex("67 42"), hex("68")])
        #expect(try AVCC.split(hex("00 02 67 42 00 00 00 01 68"), lengthSize: 2).map(Array.init) == [hex("67 42"), hex("68")])
        #expect(try AVCC.toAnnexB(sample) == AnnexB.join(nals))
        #expect(AVCC.fromAnnexB(AnnexB.join(nals)) == sample)
        let stream = try BulkStream.x264.get()
        let first = AnnexB.join(stream.accessUnits[0])
        #expect(try AVCC.toAnnexB(AVCC.fromAnnexB(first)) == first)
    }

    @Test("AVCC lengths that overrun, and odd length sizes, throw")
    func avccHostile() {
        #expect(throws: WireError.self) { try AVCC.split(hex("00 00 00 05 67 42")) }
        #expect(throws: WireError.self) { try AVCC.split(hex("00 00 01")) }
        #expect(throws: WireError.self) { try AVCC.split(hex("01 67"), lengthSize: 3) }
        var rng = SplitMix64(seed: 22)
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...30, using: &rng)).map { _ in UInt8.random(in: 0...8, using: &rng) }
            if let nals = try? AVCC.split(bytes, lengthSize: [1, 2, 4][Int.random(in: 0...2, using: &rng)]) {
                #expect(nals.allSatisfy { !$0.isEmpty })
            }
        }
    }
}
