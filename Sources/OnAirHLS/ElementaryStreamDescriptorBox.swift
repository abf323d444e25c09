/// ISO/IEC 14496-14 §5.6 `ESDBox` ('esds'): a full box holding one ES_Descriptor
/// (ISO/IEC 14496-1 §7.2.6.5) that nests a DecoderConfigDescriptor (§7.2.6.6) with the
/// AudioSpecificConfig as DecoderSpecificInfo (§7.2.6.7) and an SLConfigDescriptor
/// (§7.3.2.3.1) with predefined = 2 (reserved for use in MP4 files).
public struct ElementaryStreamDescriptorBox: BoxWritable, Equatable {
    public var esID: UInt16
    public var decoderSpecificInfo: [UInt8]
    public var averageBitrate: UInt32
    public var maxBitrate: UInt32
    public var bufferSizeDB: UInt32

    public init(esID: UInt16 = 0, decoderSpecificInfo: [UInt8], averageBitrate: UInt32 = 0,
                maxBitrate: UInt32 = 0, bufferSizeDB: UInt32 = 0) {
        self.esID = esID
        self.decoderSpecificInfo = decoderSpecificInfo
        self.averageBitrate = averageBitrate
        self.maxBitrate = maxBitrate
        self.bufferSizeDB = bufferSizeDB
    }

    /// ISO/IEC 14496-1 §7.2.2.1 class tags.
    enum Tag: UInt8 {
        case esDescriptor = 0x03, decoderConfig = 0x04, decoderSpecificInfo = 0x05, slConfig = 0x06
    }

    public func write(to writer: inout BoxWriter) {
        let specific = Self.descriptor(.decoderSpecificInfo, decoderSpecificInfo)
        var config: [UInt8] = [0x40, 0x15]               // objectTypeIndication MPEG-4 Audio;
        config += Self.bigEndian(bufferSizeDB, bytes: 3)  // streamType 5 (audio) << 2 | reserved 1
        config += Self.bigEndian(maxBitrate, bytes: 4)
        config += Self.bigEndian(averageBitrate, bytes: 4)
        config += specific
        var es = Self.bigEndian(UInt32(esID), bytes: 2)
        es.append(0)                                      // no dependence, URL or OCR; priority 0
        es += Self.descriptor(.decoderConfig, config)
        es += Self.descriptor(.slConfig, [0x02])
        let esDescriptor = Self.descriptor(.esDescriptor, es)
        writer.fullBox("esds", version: 0, flags: 0) { body in body.write(contentsOf: esDescriptor) }
    }

    /// ISO/IEC 14496-1 §8.3.3 expandable size: 7 bits per byte, most significant first,
    /// the high bit set on every byte but the last.
    static func descriptor(_ tag: Tag, _ payload: [UInt8]) -> [UInt8] {
        var size: [UInt8] = [UInt8(payload.count & 0x7F)]
        var rest = payload.count >> 7
        while rest > 0 {
            size.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return [tag.rawValue] + size + payload
    }

    static func bigEndian(_ value: UInt32, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> UInt32($0 * 8)) }
    }
}
