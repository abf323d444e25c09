/// Tells whether an H.264 RTP payload starts a keyframe (RFC 6184 §5.2-5.8), without
/// allocating: a single NAL unit of type 5 (IDR) or 7 (SPS), a STAP-A aggregating one, or the
/// first fragment (S bit) of an FU-A carrying one.
public enum H264Keyframe {
    @inline(__always)
    public static func startsKeyframe(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let first = payload.first else { return false }
        let type = first & 0x1F
        switch type {
        case 5, 7:
            return true
        case 24:  // STAP-A: [header][size16][NAL][size16][NAL]...
            var offset = 1
            while offset + 2 < payload.count {
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                let nalType = payload[offset + 2] & 0x1F
                if nalType == 5 || nalType == 7 { return true }
                offset += 2 + size
            }
            return false
        case 28:  // FU-A: [indicator][S E R type]
            guard payload.count >= 2 else { return false }
            let header = payload[1]
            let nalType = header & 0x1F
            return header & 0x80 != 0 && (nalType == 5 || nalType == 7)
        default:
            return false
        }
    }
}
