import OnAirPayload
import OnAirWire

/// Bridges from the H.264 bitstream types of OnAirPayload (what the RTP depacketizer
/// hands out) to the packager's inputs.
extension AVCSampleEntry {
    /// The sample entry for a stream's SPS and PPS: the 'avcC' record (ISO/IEC 14496-15
    /// §5.3.3.1) and the display size the SPS gives after cropping (H.264 §7.4.2.1.1).
    /// The samples must use 4-byte NAL unit lengths, as ``VideoAccessUnit`` requires.
    public init(sps: [UInt8], pps: [UInt8]) throws(WireError) {
        let parsed = try H264SPS(nalUnit: sps)
        guard (1...Int(UInt16.max)).contains(parsed.width), (1...Int(UInt16.max)).contains(parsed.height) else {
            throw .invalid("SPS size \(parsed.width)x\(parsed.height)")
        }
        let record = try AVCDecoderConfigurationRecord(sps: sps, pps: pps, lengthSize: 4)
        try self.init(width: UInt16(parsed.width), height: UInt16(parsed.height), decoderConfiguration: record.serialize())
    }
}

extension VideoAccessUnit {
    /// A depacketized access unit on the packager's 64-bit clock. RTP timestamps wrap
    /// at 2^32; the relay unwraps them (and maps them to the audio's epoch) first.
    public init(_ accessUnit: H264AccessUnit, timestamp: Int64) {
        self.init(data: accessUnit.avccSample, timestamp: timestamp, isKeyframe: accessUnit.isKeyframe)
    }
}
