/// Test helper: splits an H.264 Annex B byte stream (ITU-T H.264 Annex B) into NAL
/// units and access units, and builds the AVCC samples and 'avcC' record the packager takes.
struct AnnexBStream {
    struct AccessUnit {
        var nalUnits: [[UInt8]]
        var isKeyframe: Bool { nalUnits.contains { $0.first.map { $0 & 0x1F == 5 } ?? false } }
        /// ISO/IEC 14496-15 §5.3.2: each NAL unit behind a 4-byte length.
        var avcc: [UInt8] {
            var out: [UInt8] = []
            for nal in nalUnits where nal.first.map({ $0 & 0x1F != 9 }) ?? false {
                let n = UInt32(nal.count)
                out += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
                out += nal
            }
            return out
        }
    }

    let nalUnits: [[UInt8]]

    init(_ bytes: [UInt8]) {
        var units: [[UInt8]] = []
        var index = 0
        var start: Int? = nil
        while index + 2 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let s = start {
                    var end = index
                    while end > s, bytes[end - 1] == 0 { end -= 1 }   // trailing zero of a 4-byte start code
                    units.append(Array(bytes[s..<end]))
                }
                index += 3
                start = index
            } else {
                index += 1
            }
        }
        if let s = start, s < bytes.count { units.append(Array(bytes[s...])) }
        nalUnits = units
    }

    /// Groups NAL units into access units: non-VCL units (SEI, SPS, PPS, AUD) open the next
    /// picture; a VCL slice with first_mb_in_slice = 0 (the ue(v) starts with bit 1) starts one.
    var accessUnits: [AccessUnit] {
        var result: [AccessUnit] = []
        var pending: [[UInt8]] = []
        for nal in nalUnits {
            let type = nal[0] & 0x1F
            let isVCL = type == 1 || type == 5
            if !isVCL {
                pending.append(nal)
            } else if nal.count > 1, nal[1] & 0x80 != 0 || result.isEmpty {
                result.append(AccessUnit(nalUnits: pending + [nal]))
                pending = []
            } else {
                result[result.count - 1].nalUnits += pending + [nal]
                pending = []
            }
        }
        return result
    }

    var sps: [UInt8]? { nalUnits.first { $0[0] & 0x1F == 7 } }
    var pps: [UInt8]? { nalUnits.first { $0[0] & 0x1F == 8 } }

    /// ISO/IEC 14496-15 §5.3.3.1 AVCDecoderConfigurationRecord for Baseline/Main profiles
    /// (no chroma-format extension): version 1, profile, compatibility, level,
    /// lengthSizeMinusOne 3, one SPS, one PPS.
    var avcDecoderConfigurationRecord: [UInt8]? {
        guard let sps, let pps, sps.count >= 4 else { return nil }
        var record: [UInt8] = [1, sps[1], sps[2], sps[3], 0xFF, 0xE1]
        record += [UInt8(sps.count >> 8), UInt8(sps.count & 0xFF)] + sps
        record += [1, UInt8(pps.count >> 8), UInt8(pps.count & 0xFF)] + pps
        return record
    }
}
