import OnAirWire

/// ISO/IEC 14496-15 §5.4.2 AVC sample entry ('avc1'): an ISO/IEC 14496-12 §12.1.3
/// `VisualSampleEntry` followed by an 'avcC' box holding the
/// `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §5.3.3.1) with the SPS and PPS.
///
/// With 'avc1' every parameter set lives in 'avcC'; the samples still may repeat them
/// in-band, which decoders accept.
public struct AVCSampleEntry: BoxWritable, Equatable {
    public var width: UInt16
    public var height: UInt16
    /// The whole `AVCDecoderConfigurationRecord`, as it goes into 'avcC'.
    public var decoderConfiguration: [UInt8]

    /// Checks the record's fixed header (configurationVersion 1, at least the 6 leading
    /// bytes plus numOfSequenceParameterSets) so that a malformed record is refused here
    /// rather than by every player.
    public init(width: UInt16, height: UInt16, decoderConfiguration: [UInt8]) throws(WireError) {
        guard decoderConfiguration.count >= 7 else { throw .truncated }
        guard decoderConfiguration[0] == 1 else {
            throw .invalid("avcC configurationVersion \(decoderConfiguration[0]), expected 1")
        }
        guard width > 0, height > 0 else { throw .invalid("video size \(width)x\(height)") }
        self.width = width
        self.height = height
        self.decoderConfiguration = decoderConfiguration
    }

    /// RFC 6381 §3.3 codec parameter: "avc1." + profile_idc, the constraint flags byte and
    /// level_idc in hex, which are bytes 1-3 of the record (copies of SPS bytes 1-3).
    public var codecString: String {
        "avc1." + Hex.encode(decoderConfiguration[1...3])
    }

    public func write(to writer: inout BoxWriter) {
        writer.box("avc1") { body in
            body.writeZeros(6)                   // SampleEntry reserved
            body.write(UInt16(1))                // data_reference_index
            body.write(UInt16(0))                // pre_defined
            body.write(UInt16(0))                // reserved
            body.writeZeros(12)                  // pre_defined(32)[3]
            body.write(width)
            body.write(height)
            body.write(UInt32(0x0048_0000))      // horizresolution 72 dpi
            body.write(UInt32(0x0048_0000))      // vertresolution 72 dpi
            body.write(UInt32(0))                // reserved
            body.write(UInt16(1))                // frame_count
            body.writeZeros(32)                  // compressorname (empty Pascal string)
            body.write(UInt16(0x0018))           // depth: colour, no alpha
            body.write(UInt16(0xFFFF))           // pre_defined = -1
            body.box("avcC") { avcC in avcC.write(contentsOf: decoderConfiguration) }
        }
    }
}
