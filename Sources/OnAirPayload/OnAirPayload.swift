// OnAirPayload: RTP payload formats and the H.264 bitstream.
//
// - H.264 bitstream (ITU-T H.264, ISO/IEC 14496-10 and -15): Annex B byte streams, AVCC
//   length-prefixed samples, NAL unit headers, SPS parsing, AVCDecoderConfigurationRecord.
// - H.264 over RTP (RFC 6184, packetization-mode 1): packetizer and depacketizer.
// - Opus over RTP (RFC 7587) and the Opus TOC byte (RFC 6716 §3.1).
//
// Everything here is pure: values in, values out. Packetizing writes into caller buffers;
// depacketizing allocates only the access units it hands out.

import OnAirWire

extension Collection where Element == UInt8 {
    /// Appends the bytes of `self` to `array`, through contiguous storage when there is some.
    @inline(__always)
    func append(to array: inout [UInt8]) {
        if withContiguousStorageIfAvailable({ array.append(contentsOf: $0) }) == nil {
            array.append(contentsOf: self)
        }
    }
}
