/// Looks into H.264 RTP payloads (RFC 6184 §5.2-5.8) without depacketizing them: whether one
/// starts a keyframe (a single NAL unit of type 5 (IDR) or 7 (SPS), a STAP-A aggregating one,
/// or the first fragment (S bit) of an FU-A carrying one), and the SPS it carries. The keyframe
/// test allocates nothing: it runs on every forwarded packet.
public enum H264Keyframe {
    @inline(__always)
    public static func startsKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let first = payload.first else { return false }
        switch first & 0x1F {
        case 5, 7:
            return true
        case 24:
            // A type that says "keyframe" counts even if the unit is cut short.
            return firstAggregatedNALUnit(in: payload, whole: false) { type in type == 5 || type == 7 } != nil
        case 28:  // FU-A: [indicator][S E R type]
            guard payload.count >= 2 else { return false }
            let header = payload[1]
            let nalType = header & 0x1F
            return header & 0x80 != 0 && (nalType == 5 || nalType == 7)
        default:
            return false
        }
    }

    /// The SPS of a single-NAL payload or of a STAP-A, parsed (H.264 §7.3.2.1); nil otherwise.
    public static func sequenceParameterSet(in payload: UnsafeRawBufferPointer) -> H264SPS? {
        guard let first = payload.first else { return nil }
        switch first & 0x1F {
        case 7:
            return try? H264SPS(nalUnit: payload)
        case 24:
            guard let range = firstAggregatedNALUnit(in: payload, whole: true, where: { $0 == 7 }) else { return nil }
            return try? H264SPS(nalUnit: UnsafeRawBufferPointer(rebasing: payload[range]))
        default:
            return nil
        }
    }

    /// RFC 6184 §5.7.1 STAP-A: [header][size16][NAL][size16][NAL]...; the range of the first
    /// aggregated NAL unit whose type passes `test`; with `whole`, nil unless it lies wholly
    /// inside the payload (else its range is cut at the payload's end).
    @inline(__always)
    static func firstAggregatedNALUnit(in payload: UnsafeRawBufferPointer, whole: Bool,
                                       where test: (UInt8) -> Bool) -> Range<Int>? {
        var offset = 1
        while offset + 2 < payload.count {
            let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
            let start = offset + 2
            if test(payload[start] & 0x1F) {
                if start + size <= payload.count { return start..<(start + size) }
                return whole ? nil : start..<payload.count
            }
            offset = start + size
        }
        return nil
    }
}
