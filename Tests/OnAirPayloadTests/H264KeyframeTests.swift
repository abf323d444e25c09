import Testing
import OnAirPayload

/// ``H264Keyframe/role(of:)`` over RFC 6184 payload structures (§5.6 single NAL unit, §5.7.1
/// STAP-A, §5.8 FU-A); NAL unit types from H.264 Table 7-1 (1 non-IDR slice, 5 IDR slice,
/// 6 SEI, 7 SPS, 8 PPS, 9 access unit delimiter, 12 filler).
@Suite("H264Keyframe")
struct H264KeyframeTests {
    func role(_ bytes: [UInt8]) -> H264Keyframe.Role {
        bytes.withUnsafeBytes { H264Keyframe.role(of: $0) }
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

    @Test("single NAL unit packets: an IDR starts a keyframe; SPS, PPS, SEI and AUD are a preamble; slices and filler are neither")
    func singleNAL() {
        #expect(role([0x65, 0x88, 0x84, 0x00]) == .idrStart)  // IDR, NRI 3
        #expect(role([0x25, 0x88]) == .idrStart)  // IDR, NRI 1
        #expect(role([0x65]) == .idrStart)  // header only
        for preamble in [Self.sps, Self.pps, Self.sei, Self.aud] { #expect(role(preamble) == .preamble) }
        #expect(role([0x41, 0x9A, 0x00]) == .other)  // non-IDR slice
        #expect(role([0x01, 0x9A]) == .other)  // non-IDR, NRI 0
        #expect(role([0x0C]) == .other)  // filler
        #expect(role([0x0A]) == .other)  // end of sequence
    }

    @Test("STAP-A: an IDR anywhere in it starts a keyframe; parameter sets alone are a preamble")
    func aggregation() {
        #expect(role(stapA([Self.sps, Self.pps])) == .preamble)  // what Chromium and aiortc send before an IDR
        #expect(role(stapA([Self.sps, Self.pps, [0x65, 0x88, 0x80]])) == .idrStart)
        #expect(role(stapA([Self.aud, Self.sei, [0x65, 0x88]])) == .idrStart)  // IDR after two others
        #expect(role(stapA([Self.pps, Self.sps])) == .preamble)
        #expect(role(stapA([Self.pps, Self.sei])) == .preamble)
        #expect(role(stapA([Self.sps, Self.pps, [0x41, 0x9A]])) == .other)  // parameter sets before a P picture
        #expect(role(stapA([Self.aud, [0x41, 0x9A]])) == .other)
        #expect(role(stapA([])) == .other)
    }

    @Test("FU-A: the first fragment of an IDR starts a keyframe; later fragments and other slices do not")
    func fragmentation() {
        #expect(role([0x7C, 0x85, 0x88, 0x84]) == .idrStart)  // indicator NRI 3 type 28; S=1, type 5
        #expect(role([0x5C, 0x85]) == .idrStart)  // NRI 2
        #expect(role([0x7C, 0x05, 0x88]) == .other)  // middle fragment of an IDR
        #expect(role([0x7C, 0x45, 0x88]) == .other)  // end fragment (E bit) of an IDR
        #expect(role([0x7C, 0x81, 0x9A]) == .other)  // start of a non-IDR slice
        #expect(role([0x7C, 0x01, 0x9A]) == .other)
        #expect(role([0x7C, 0x86, 0x05]) == .preamble)  // start of a fragmented SEI
        #expect(role([0x7C, 0x06, 0x05]) == .other)  // its later fragment
    }

    @Test("other packetization types are neither (STAP-B, MTAP, FU-B, reserved)")
    func otherTypes() {
        for type: UInt8 in [0, 25, 26, 27, 29, 30, 31] {
            #expect(role([0x60 | type, 0x85, 0x00, 0x02, 0x65, 0x88]) == .other, "type \(type)")
        }
    }

    @Test("truncated payloads are answered, never trapped on")
    func truncated() {
        #expect(role([]) == .other)
        #expect(role([0x7C]) == .other)  // FU-A without its header
        #expect(role([0x78]) == .other)  // STAP-A without a size
        #expect(role([0x78, 0x00]) == .other)
        #expect(role([0x78, 0x00, 0x0A]) == .other)  // size without the NAL header
        #expect(role([0x78, 0x00, 0x0A, 0x65]) == .idrStart)  // says 10 bytes, has 1: the header is enough
        #expect(role([0x78, 0x00, 0x0A, 0x67]) == .preamble)
        #expect(role([0x78, 0xFF, 0xFF, 0x68, 0x00]) == .preamble)  // a size past the end ends the walk
        #expect(role([0x78, 0x00, 0x00, 0x61, 0x00]) == .other)  // zero-sized unit, then garbage
    }

    @Test("the SPS is found alone or in a STAP-A, and only when whole")
    func sequenceParameterSet() {
        let spsOf = { (bytes: [UInt8]) in bytes.withUnsafeBytes { H264Keyframe.sequenceParameterSet(in: $0) } }
        #expect(spsOf(Self.sps) != nil)
        #expect(spsOf(stapA([Self.sps, Self.pps])) != nil)
        #expect(spsOf(Array(stapA([Self.sps, Self.pps]).prefix(8))) == nil)
        #expect(spsOf(stapA([Self.pps])) == nil)
        #expect(spsOf(Self.pps) == nil)
    }

    @Test("every payload of up to 3 bytes, and long random ones, gets an answer")
    func exhaustiveShortPayloads() {
        var keyframes = 0
        for a in 0...255 {
            if role([UInt8(a)]) == .idrStart { keyframes += 1 }
            for b in 0...255 {
                if role([UInt8(a), UInt8(b)]) == .idrStart { keyframes += 1 }
                for c in stride(from: 0, through: 255, by: 17) where role([UInt8(a), UInt8(b), UInt8(c)]) == .idrStart {
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
            _ = role(bytes)
        }
    }
}
