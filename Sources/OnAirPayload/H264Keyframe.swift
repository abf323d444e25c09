/// The one definition of an H.264 keyframe on the relay's path: an access unit with an IDR
/// picture (NAL unit type 5, H.264 §7.4.1.2.4), the point where decoding can begin. On the
/// wire such an access unit may open with a preamble (an access unit delimiter, parameter
/// sets, SEI: §7.4.1.2.3 orders them before the first slice), which senders put in a packet
/// of its own (Chromium's and aiortc's STAP-A of SPS and PPS) or in one with the IDR's start.
/// A preamble alone says nothing: SPS and PPS may come before any picture (x264 with
/// intra refresh repeats them before pictures that are not IDR), so the access unit is a
/// keyframe only once its IDR shows. The HLS depacketizer's `isKeyframe` is this rule too.
///
/// These read RFC 6184 payloads (§5.6 single NAL unit, §5.7.1 STAP-A, §5.8 FU-A) in place and
/// allocate nothing: they run on every forwarded packet.
public enum H264Keyframe {
    /// What one payload is to a keyframe.
    public enum Role: Sendable, Equatable {
        /// Carries the start of an IDR slice: a keyframe's picture begins here.
        case idrStart
        /// Only NAL units that precede an access unit's first slice (types 6-9, 13-18): the
        /// head of a keyframe if an IDR of the same access unit follows.
        case preamble
        /// Anything else: a slice of another picture, a later fragment, filler, garbage.
        case other
    }

    @inline(__always)
    public static func role(of payload: UnsafeRawBufferPointer) -> Role {
        guard let first = payload.first else { return .other }
        let type = first & 0x1F
        switch type {
        case 5:
            return .idrStart
        case 24:
            // A type that says "IDR" counts even if the unit is cut short.
            var role = Role.other
            var allPreamble = true
            forEachAggregatedNALUnit(in: payload) { type, _ in
                if type == 5 { role = .idrStart; return false }
                allPreamble = allPreamble && isPreamble(type)
                role = allPreamble ? .preamble : .other
                return true
            }
            return role
        case 28:  // FU-A: [indicator][S E R type]
            guard payload.count >= 2, payload[1] & 0x80 != 0 else { return .other }
            let fragmented = payload[1] & 0x1F
            return fragmented == 5 ? .idrStart : isPreamble(fragmented) ? .preamble : .other
        default:
            return isPreamble(type) ? .preamble : .other
        }
    }

    /// H.264 §7.4.1.2.3: SEI, SPS, PPS, access unit delimiter, and types 13-18 (SPS
    /// extension, prefix NAL unit, subset SPS, reserved) may come before a picture's first slice.
    @inline(__always)
    static func isPreamble(_ type: UInt8) -> Bool {
        (6...9).contains(type) || (13...18).contains(type)
    }

    /// The SPS of a single-NAL payload or of a STAP-A, parsed (H.264 §7.3.2.1); nil otherwise.
    public static func sequenceParameterSet(in payload: UnsafeRawBufferPointer) -> H264SPS? {
        guard let first = payload.first else { return nil }
        switch first & 0x1F {
        case 7:
            return try? H264SPS(nalUnit: payload)
        case 24:
            guard let range = firstAggregatedNALUnit(in: payload, where: { $0 == 7 }) else { return nil }
            return try? H264SPS(nalUnit: UnsafeRawBufferPointer(rebasing: payload[range]))
        default:
            return nil
        }
    }

    /// RFC 6184 §5.7.1 STAP-A: [header][size16][NAL][size16][NAL]...; the range of the first
    /// aggregated NAL unit whose type passes `test`, if it lies wholly inside the payload.
    static func firstAggregatedNALUnit(in payload: UnsafeRawBufferPointer, where test: (UInt8) -> Bool) -> Range<Int>? {
        var found: Range<Int>?
        forEachAggregatedNALUnit(in: payload) { type, range in
            guard test(type) else { return true }
            found = range.upperBound <= payload.count ? range : nil
            return false
        }
        return found
    }

    /// Walks a STAP-A's aggregated NAL units (RFC 6184 §5.7.1), each with its type and the
    /// range its size claims (which may run past the payload's end), while `body` returns true.
    @inline(__always)
    static func forEachAggregatedNALUnit(in payload: UnsafeRawBufferPointer, _ body: (_ type: UInt8, _ range: Range<Int>) -> Bool) {
        var offset = 1
        while offset + 2 < payload.count {
            let start = offset + 2
            let end = start + (Int(payload[offset]) << 8 | Int(payload[offset + 1]))
            guard body(payload[start] & 0x1F, start..<end) else { return }
            offset = end
        }
    }
}
