import Testing
import OnAirPayload

/// ``H264Keyframe/startsKeyframe(_:)`` over RFC 6184 payload structures (§5.6 single NAL unit,
/// §5.7.1 STAP-A, §5.8 FU-A); NAL unit types from H.264 Table 7-1 (1 non-IDR slice, 5 IDR
/// slice, 6 SEI, 7 SPS, 8 PPS, 9 access unit delimiter).
@Suite("H264Keyframe")
struct H264KeyframeTests {
    func startsKeyframe(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { H264Keyframe.startsKeyframe($0) }
    }

    /// A STAP-A (type 24, NRI 3) of the given NAL units, each with its 16-bit size.
    func stapA(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [0x78]
        for unit in units { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        return out
    }

    static let sps: [UInt8] = [0x67, 0x42, 0xE0, 0x1F, 0x8C, 0x8D, 0x40, 0x50, 0x1E, 0xD0]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let sei: [UInt8] = [0x06, 0x05, 0x01, 0x00, 0x80]
    static let aud: [UInt8] = [0x09, 0xF0]

    @Test("single NAL unit packets: IDR and SPS start a keyframe, the rest do not")
    func singleNAL() {
        #expect(startsKeyframe([0x65, 0x88, 0x84, 0x00]))  // IDR, NRI 3
        #expect(startsKeyframe([0x25, 0x88]))  // IDR, NRI 1
        #expect(startsKeyframe([0x65]))  // header only
        #expect(startsKeyframe(Self.sps))
        #expect(!startsKeyframe([0x41, 0x9A, 0x00]))  // non-IDR slice
        #expect(!startsKeyframe([0x01, 0x9A]))  // non-IDR, NRI 0
        #expect(!startsKeyframe(Self.pps))
        #expect(!startsKeyframe(Self.sei))
        #expect(!startsKeyframe(Self.aud))
        #expect(!startsKeyframe([0x0C]))  // filler
    }

    @Test("STAP-A: a keyframe when it aggregates an SPS or an IDR, wherever it sits")
    func stapAggregation() {
        #expect(startsKeyframe(stapA([Self.sps, Self.pps])))  // what Chromium and aiortc send before an IDR
        #expect(startsKeyframe(stapA([Self.sps, Self.pps, [0x65, 0x88, 0x80]])))
        #expect(startsKeyframe(stapA([Self.aud, Self.sei, [0x65, 0x88]])))  // IDR after two others
        #expect(startsKeyframe(stapA([Self.pps, Self.sps])))
        #expect(!startsKeyframe(stapA([Self.pps, Self.sei])))
        #expect(!startsKeyframe(stapA([Self.aud, [0x41, 0x9A]])))
        #expect(!startsKeyframe(stapA([])))
    }

    @Test("FU-A: only the start fragment (S bit) of an IDR starts a keyframe")
    func fragmentation() {
        #expect(startsKeyframe([0x7C, 0x85, 0x88, 0x84]))  // indicator NRI 3 type 28; S=1, type 5
        #expect(startsKeyframe([0x5C, 0x85]))  // NRI 2
        #expect(!startsKeyframe([0x7C, 0x05, 0x88]))  // middle fragment of an IDR
        #expect(!startsKeyframe([0x7C, 0x45, 0x88]))  // end fragment (E bit) of an IDR
        #expect(!startsKeyframe([0x7C, 0x81, 0x9A]))  // start of a non-IDR slice
        #expect(!startsKeyframe([0x7C, 0x01, 0x9A]))
        #expect(!startsKeyframe([0x7C, 0x88]))  // start of a PPS (not a keyframe on its own)
    }

    @Test("other packetization types are not keyframes (STAP-B, MTAP, FU-B, reserved)")
    func otherTypes() {
        for type: UInt8 in [0, 25, 26, 27, 29, 30, 31] {
            #expect(!startsKeyframe([0x60 | type, 0x85, 0x00, 0x02, 0x65, 0x88]), "type \(type)")
        }
    }

    @Test("truncated payloads are answered, never trapped on")
    func truncated() {
        #expect(!startsKeyframe([]))
        #expect(!startsKeyframe([0x7C]))  // FU-A without its header
        #expect(!startsKeyframe([0x78]))  // STAP-A without a size
        #expect(!startsKeyframe([0x78, 0x00]))
        #expect(!startsKeyframe([0x78, 0x00, 0x0A]))  // size without the NAL header
        #expect(startsKeyframe([0x78, 0x00, 0x0A, 0x67]))  // says 10 bytes, has 1: the header is enough
        #expect(!startsKeyframe([0x78, 0xFF, 0xFF, 0x68, 0x00]))  // a size past the end ends the walk
        #expect(!startsKeyframe([0x78, 0x00, 0x00, 0x68, 0x00]))  // zero-sized unit
    }

    @Test("every payload of up to 3 bytes, and long random ones, gets an answer")
    func exhaustiveShortPayloads() {
        var keyframes = 0
        for a in 0...255 {
            if startsKeyframe([UInt8(a)]) { keyframes += 1 }
            for b in 0...255 {
                if startsKeyframe([UInt8(a), UInt8(b)]) { keyframes += 1 }
                for c in stride(from: 0, through: 255, by: 17) where startsKeyframe([UInt8(a), UInt8(b), UInt8(c)]) {
                    keyframes += 1
                }
            }
        }
        #expect(keyframes > 0)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...64, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty && Bool.random(using: &generator) { bytes[0] = 0x78 }  // STAP-A walks the most
            _ = startsKeyframe(bytes)
        }
    }
}
