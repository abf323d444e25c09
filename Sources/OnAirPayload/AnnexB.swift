/// The H.264 Annex B byte stream format: NAL units separated by start codes.
///
/// ITU-T H.264 §B.1: every NAL unit is preceded by `0x000001`, optionally with a leading
/// `zero_byte` (the 4-byte start code `0x00000001`), and may be followed by
/// `trailing_zero_8bits`. Emulation prevention (H.264 §7.4.1) guarantees that no start
/// code appears inside a NAL unit, and no NAL unit ends in a zero byte, so trailing zeros
/// before the next start code belong to the framing. Emulation prevention bytes are left
/// in place: the NAL units come out exactly as they were coded.
public enum AnnexB {
    /// The 4-byte start code (`zero_byte` + `start_code_prefix_one_3bytes`), which H.264
    /// §B.1.2 requires before SPS, PPS and the first NAL unit of an access unit.
    public static let startCode: [UInt8] = [0, 0, 0, 1]

    /// Where each NAL unit lies in `stream`, without start codes or trailing zero bytes.
    /// Bytes before the first start code (leading_zero_8bits) are skipped; empty NAL
    /// units (two start codes in a row) are left out.
    public static func nalUnitRanges(in stream: [UInt8]) -> [Range<Int>] {
        stream.withUnsafeBufferPointer { nalUnitRanges(in: $0) }
    }

    /// `nalUnitRanges(in:)` over raw memory (for example an encoder's output buffer).
    public static func nalUnitRanges(in stream: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let count = stream.count
        var nalStart: Int? = nil
        var i = 0
        while i + 2 < count {
            // If the third byte is above 1, no start code can begin at i, i+1 or i+2.
            if stream[i + 2] > 1 {
                i += 3
            } else if stream[i + 2] == 1 && stream[i + 1] == 0 && stream[i] == 0 {
                if let start = nalStart { appendTrimmed(start..<i, of: stream, to: &ranges) }
                nalStart = i + 3
                i += 3
            } else {
                i += 1
            }
        }
        if let start = nalStart { appendTrimmed(start..<count, of: stream, to: &ranges) }
        return ranges
    }

    /// The NAL units of `stream`, as slices that share its storage.
    public static func split(_ stream: [UInt8]) -> [ArraySlice<UInt8>] {
        nalUnitRanges(in: stream).map { stream[$0] }
    }

    /// A byte stream of `nalUnits`, each preceded by a 4-byte start code. Empty NAL units
    /// are left out (they cannot be represented).
    public static func join<NALUnits: Sequence>(_ nalUnits: NALUnits) -> [UInt8]
    where NALUnits.Element: Collection, NALUnits.Element.Element == UInt8 {
        var out: [UInt8] = []
        for nal in nalUnits where !nal.isEmpty {
            out.append(contentsOf: startCode)
            nal.append(to: &out)
        }
        return out
    }

    /// Drops the zero bytes before the next start code (its `zero_byte` or
    /// `trailing_zero_8bits`), then keeps the range if anything is left.
    private static func appendTrimmed(
        _ range: Range<Int>, of stream: UnsafeBufferPointer<UInt8>, to ranges: inout [Range<Int>]
    ) {
        var end = range.upperBound
        while end > range.lowerBound && stream[end - 1] == 0 { end -= 1 }
        if end > range.lowerBound { ranges.append(range.lowerBound..<end) }
    }
}
