import Testing

@testable import OnAirPayload

/// The header bits of RFC 6184 §5.3 (NAL unit header), §5.7.1 (STAP-A, Figure 7) and
/// §5.8 (FU indicator and FU header, Figures 14-15), byte by byte.
@Suite("RFC 6184 payload header bits")
struct RFC6184HeaderTests {
    @Test("NAL unit header: F | NRI | Type")
    func nalUnitHeader() {
        let idr = H264NALUnitHeader(0x65)
        #expect(!idr.forbiddenZeroBit && idr.nalRefIdc == 3 && idr.type == .idrSlice)
        let flagged = H264NALUnitHeader(0xFC)
        #expect(flagged.forbiddenZeroBit && flagged.nalRefIdc == 3 && flagged.type == .fuA)
        #expect(H264NALUnitHeader(nalRefIdc: 2, type: .stapA).byte == 0x58)
        #expect(H264NALUnitHeader(forbiddenZeroBit: true, nalRefIdc: 0, type: .sei).byte == 0x86)
        #expect(H264NALUnitType(0xFF) == H264NALUnitType(31))
        #expect(H264NALUnitType.sps.description == "SPS" && H264NALUnitType.fuA.description == "FU-A")
    }

    @Test("FU-A of an IDR (NRI 3): indicator 0x7C, headers 0x85 / 0x05 / 0x45")
    func fuAIDR() {
        let payloads = H264Packetizer(maxPayloadSize: 4).packetize([hex("65 a1 a2 b1 b2 c1")])
        #expect(payloads.map(\.bytes) == [hex("7c 85 a1 a2"), hex("7c 05 b1 b2"), hex("7c 45 c1")])
    }

    @Test("FU indicator keeps F and NRI of the fragmented NAL unit; the FU header keeps its type")
    func fuABits() {
        let nonReference = H264Packetizer(maxPayloadSize: 3).packetize([hex("01 aa bb cc")])
        #expect(nonReference.map(\.bytes) == [hex("1c 81 aa"), hex("1c 01 bb"), hex("1c 41 cc")])
        let nri2 = H264Packetizer(maxPayloadSize: 3).packetize([hex("41 aa bb cc")])
        #expect(nri2.map(\.bytes) == [hex("5c 81 aa"), hex("5c 01 bb"), hex("5c 41 cc")])
        let forbidden = H264Packetizer(maxPayloadSize: 3).packetize([hex("e5 aa bb cc")])
        #expect(forbidden.map(\.bytes) == [hex("fc 85 aa"), hex("fc 05 bb"), hex("fc 45 cc")])
    }

    @Test("STAP-A header: F is the OR, NRI the maximum of the aggregated NAL units")
    func stapABits() {
        #expect(H264Packetizer().packetize([hex("06 01"), hex("41 02")])[0].bytes == hex("58 0002 0601 0002 4102"))
        #expect(H264Packetizer().packetize([hex("86 01"), hex("21 02")])[0].bytes == hex("b8 0002 8601 0002 2102"))
        #expect(H264Packetizer().packetize([hex("06 01"), hex("01 02")])[0].bytes == hex("18 0002 0601 0002 0102"))
        #expect(H264Packetizer(aggregates: false).packetize([hex("06 01"), hex("01 02")]).map(\.bytes) == [hex("06 01"), hex("01 02")])
    }

    @Test("the receiver rebuilds the NAL header from the FU indicator's F/NRI and the FU header's type")
    func fuAReassemblyHeader() {
        var d = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        let units = feed([hex("5c 85 01 02"), hex("5c 05 03"), hex("5c 45 04")], firstSequence: 7, into: &d)
        #expect(units.map(\.nalUnits) == [[hex("45 01 02 03 04")]])
    }

    @Test("the receiver ignores the FU header's R bit (§5.8) and accepts S and E in one FU")
    func fuALenient() {
        var d = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        let reserved = feed([hex("7c a5 01"), hex("7c 65 02")], firstSequence: 1, into: &d)
        #expect(reserved.map(\.nalUnits) == [[hex("65 01 02")]])
        let whole = feed([hex("7c c5 09 08")], firstSequence: 3, timestamp: 93_000, into: &d)
        #expect(whole.map(\.nalUnits) == [[hex("65 09 08")]])
        #expect(whole.first?.isKeyframe == true)
    }

    @Test("STAP-A units come out in order, each with its own header")
    func stapASplit() {
        var d = H264Depacketizer(configuration: .init(waitsForFirstKeyframe: false))
        let units = feed([hex("78 0003 67 42 00 0002 68 ce 0003 65 88 80")], firstSequence: 1, into: &d)
        #expect(units.map(\.nalUnits) == [[hex("67 42 00"), hex("68 ce"), hex("65 88 80")]])
        #expect(units.first?.sps == hex("67 42 00") && units.first?.pps == hex("68 ce"))
    }
}
