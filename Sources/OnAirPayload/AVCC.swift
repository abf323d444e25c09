import OnAirWire

/// Length-prefixed NAL units: the sample format of MP4/fMP4 (ISO/IEC 14496-15 §5.3.2),
/// often called AVCC. Each NAL unit is preceded by its size as a big-endian integer of
/// `lengthSize` bytes, where `lengthSize` is `lengthSizeMinusOne + 1` from the
/// AVCDecoderConfigurationRecord (1, 2 or 4). No start codes, no emulation changes.
public enum AVCC {
    /// The length size this module writes (lengthSizeMinusOne = 3).
    public static let defaultLengthSize = 4

    /// The NAL units of a length-prefixed sample, as slices sharing its storage.
    /// Throws if a length runs past the end of the sample or the length size is not 1, 2 or 4.
    public static func split(_ sample: [UInt8], lengthSize: Int = defaultLengthSize) throws(WireError) -> [ArraySlice<UInt8>] {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw .invalid("AVCC length size \(lengthSize) is not 1, 2 or 4")
        }
        var nalUnits: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < sample.count {
            guard sample.count - offset >= lengthSize else {
                throw .invalid("AVCC sample ends inside a \(lengthSize)-byte NAL unit length")
            }
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(sample[offset + k]) }
            offset += lengthSize
            guard length <= sample.count - offset else {
                throw .invalid("AVCC NAL unit of \(length) bytes runs past the end of the sample")
            }
            // ISO/IEC 14496-15 has no empty NAL units; a zero length is skipped, not fatal.
            if length > 0 { nalUnits.append(sample[offset..<offset + length]) }
            offset += length
        }
        return nalUnits
    }

    /// A sample of `nalUnits`, each preceded by its 4-byte big-endian length. Empty NAL
    /// units are left out.
    public static func join<NALUnits: Sequence>(_ nalUnits: NALUnits) -> [UInt8]
    where NALUnits.Element: Collection, NALUnits.Element.Element == UInt8 {
        var out: [UInt8] = []
        for nal in nalUnits where !nal.isEmpty {
            let length = UInt32(truncatingIfNeeded: nal.count)
            out.append(UInt8(truncatingIfNeeded: length >> 24))
            out.append(UInt8(truncatingIfNeeded: length >> 16))
            out.append(UInt8(truncatingIfNeeded: length >> 8))
            out.append(UInt8(truncatingIfNeeded: length))
            nal.append(to: &out)
        }
        return out
    }

    /// Converts an Annex B byte stream to a 4-byte length-prefixed sample.
    public static func fromAnnexB(_ stream: [UInt8]) -> [UInt8] {
        join(AnnexB.split(stream))
    }

    /// Converts a length-prefixed sample to an Annex B byte stream (4-byte start codes).
    public static func toAnnexB(_ sample: [UInt8], lengthSize: Int = defaultLengthSize) throws(WireError) -> [UInt8] {
        AnnexB.join(try split(sample, lengthSize: lengthSize))
    }
}
