import OnAirPayload
import Testing

/// The one table both directions use: packetizing `accessUnit` with `maxPayloadSize` must
/// give exactly `payloads` (the last one with the marker bit), and depacketizing
/// `payloads` must give back `accessUnit`. Expected payloads are spelled out from the
/// RFC 6184 layouts (§5.6, §5.7.1 Figure 7, §5.8 Figures 14-15) with explicit fragment
/// sizes, not computed by the code under test.
enum H264RoundTripTable {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var maxPayloadSize = 1200
        var accessUnit: [[UInt8]]
        var payloads: [[UInt8]]
        var testDescription: String { name }
    }

    /// An x264 Constrained Baseline SPS and PPS (emulation prevention bytes included).
    static let sps = hex("67 42 c0 1e da 02 80 bf e5 c0 44 00 00 03 00 04 00 00 03 00 f0 3c 58 ba 80")
    static let pps = hex("68 ce 0f c8")
    static let aud = hex("09 f0")

    static func idr(_ count: Int) -> [UInt8] { nalUnit(header: 0x65, count: count) }
    static func slice(_ count: Int, seed: UInt64 = 1) -> [UInt8] { nalUnit(header: 0x41, count: count, seed: seed) }

    /// §5.7.1: STAP-A header (F = OR of F bits, NRI = maximum NRI, type 24), then each
    /// NAL unit behind its 16-bit size.
    static func stapA(_ nals: [[UInt8]]) -> [UInt8] {
        let f = nals.reduce(0) { $0 | $1[0] & 0x80 }
        let nri = nals.reduce(0) { max($0, $1[0] & 0x60) }
        var out: [UInt8] = [f | nri | 24]
        for nal in nals { out += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
        return out
    }

    /// §5.8: FU indicator (F, NRI of the NAL unit, type 28), FU header (S, E, R = 0,
    /// NAL unit type), then the NAL unit without its header, cut at `fragments` sizes.
    static func fuA(_ nal: [UInt8], fragments: [Int]) -> [[UInt8]] {
        precondition(fragments.reduce(0, +) == nal.count - 1, "fragment sizes must cover the NAL unit")
        var payloads: [[UInt8]] = []
        var offset = 1
        for (i, size) in fragments.enumerated() {
            let s: UInt8 = i == 0 ? 0x80 : 0
            let e: UInt8 = i == fragments.count - 1 ? 0x40 : 0
            payloads.append([nal[0] & 0xE0 | 28, s | e | nal[0] & 0x1F] + nal[offset..<offset + size])
            offset += size
        }
        return payloads
    }

    static let cases: [Case] = {
        let idr3000 = idr(3000), idr100k = idr(100_000), idr2500 = idr(2500)
        let slices = (0..<20).map { slice(100, seed: UInt64($0)) }
        let sei = nalUnit(header: 0x06, count: 30)
        let n1199 = slice(1199), n1200 = slice(1200), n1201 = slice(1201)
        let a600 = slice(600), b595 = slice(595), b596 = slice(596)
        let small250 = idr(250)
        let nonReference = nalUnit(header: 0x01, count: 2000)
        return [
            Case(name: "tiny single NAL unit", accessUnit: [hex("41 9a 01")], payloads: [hex("41 9a 01")]),
            Case(name: "one-byte NAL unit (end of stream)", accessUnit: [hex("0b")], payloads: [hex("0b")]),
            Case(name: "SPS + PPS + small IDR in one STAP-A (bytes spelled out)",
                 accessUnit: [sps, pps, hex("65 88 84 00 33 ff")],
                 payloads: [hex("78 0019 6742c01eda0280bfe5c0440000030004000003 00f03c58ba80 0004 68ce0fc8 0006 65888400 33ff")]),
            Case(name: "SPS + PPS aggregated, then an IDR in three FU-As",
                 accessUnit: [sps, pps, idr3000],
                 payloads: [stapA([sps, pps])] + fuA(idr3000, fragments: [1198, 1198, 603])),
            Case(name: "huge IDR of 100 kB",
                 accessUnit: [idr100k],
                 payloads: fuA(idr100k, fragments: Array(repeating: 1198, count: 83) + [565])),
            Case(name: "20 small slices in two STAP-As (11 fit in 1200 bytes, then 9)",
                 accessUnit: slices,
                 payloads: [stapA(Array(slices[0..<11])), stapA(Array(slices[11...]))]),
            Case(name: "1199-byte NAL unit: single packet", accessUnit: [n1199], payloads: [n1199]),
            Case(name: "1200-byte NAL unit: single packet at the limit", accessUnit: [n1200], payloads: [n1200]),
            Case(name: "1201-byte NAL unit: FU-A of 1198 + 2", accessUnit: [n1201], payloads: fuA(n1201, fragments: [1198, 2])),
            Case(name: "STAP-A of exactly 1200 bytes", accessUnit: [a600, b595], payloads: [stapA([a600, b595])]),
            Case(name: "STAP-A one byte too big: two single packets", accessUnit: [a600, b596], payloads: [a600, b596]),
            Case(name: "AUD + SEI aggregated, FU-A, then a lone trailing NAL unit",
                 accessUnit: [aud, sei, idr2500, hex("0a")],
                 payloads: [stapA([aud, sei])] + fuA(idr2500, fragments: [1198, 1198, 103]) + [hex("0a")]),
            Case(name: "STAP-A NRI is the maximum (SEI NRI 0 + slice NRI 2)",
                 accessUnit: [nalUnit(header: 0x06, count: 10), slice(10)],
                 payloads: [stapA([nalUnit(header: 0x06, count: 10), slice(10)])]),
            Case(name: "non-reference NAL unit (NRI 0) in FU-As", accessUnit: [nonReference],
                 payloads: fuA(nonReference, fragments: [1198, 801])),
            Case(name: "100-byte limit", maxPayloadSize: 100, accessUnit: [sps, pps, small250],
                 payloads: [stapA([sps, pps])] + fuA(small250, fragments: [98, 98, 53])),
            Case(name: "3-byte limit (the smallest): one byte per FU-A, no aggregation",
                 maxPayloadSize: 3, accessUnit: [hex("65 01 02 03 04"), hex("41 aa bb"), hex("0a"), hex("0b")],
                 payloads: fuA(hex("65 01 02 03 04"), fragments: [1, 1, 1, 1]) + [hex("41 aa bb"), hex("0a"), hex("0b")]),
        ]
    }()
}
