import OnAirWire

/// Serializes an RFC 3550 §5.1 RTP packet: fixed header, CSRCs, an optional header
/// extension block, the payload and optional padding.
public struct RTPPacketBuilder: Sendable, Hashable {
    public var marker: Bool
    /// 7 bits; higher bits are dropped when writing.
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// At most 15 (the CC field is 4 bits); extra entries are not written.
    public var csrcs: [UInt32]
    public var extensionBlock: RTPHeaderExtensionBlock?
    /// RFC 3550 §5.1 padding octets to append (0 = none); the last one holds the count.
    public var paddingLength: UInt8

    public init(
        payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        marker: Bool = false, csrcs: [UInt32] = [], extensionBlock: RTPHeaderExtensionBlock? = nil,
        paddingLength: UInt8 = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.extensionBlock = extensionBlock
        self.paddingLength = paddingLength
    }

    private var csrcCount: Int { min(csrcs.count, 15) }

    /// Size of the header: fixed part, CSRCs and extension block.
    public var headerSize: Int {
        RTPHeader.fixedSize + 4 * csrcCount + (extensionBlock?.serializedSize ?? 0)
    }

    public func serializedSize(payloadCount: Int) -> Int {
        headerSize + payloadCount + Int(paddingLength)
    }

    private var firstOctet: UInt8 {
        RTPHeader.version << 6 | (paddingLength > 0 ? 0x20 : 0) | (extensionBlock != nil ? 0x10 : 0) | UInt8(csrcCount)
    }

    /// Appends the header (not the payload or padding) to `writer`.
    public func writeHeader(into writer: inout ByteWriter) {
        writer.write(firstOctet)
        writer.write((marker ? 0x80 : 0) | payloadType & 0x7F)
        writer.write(sequenceNumber)
        writer.write(timestamp)
        writer.write(ssrc)
        for csrc in csrcs.prefix(15) { writer.write(csrc) }
        extensionBlock?.serialize(into: &writer)
    }

    /// The whole packet as a new array.
    public func build(payload: some Collection<UInt8>) -> [UInt8] {
        var writer = ByteWriter(capacity: serializedSize(payloadCount: payload.count))
        writeHeader(into: &writer)
        writer.write(contentsOf: payload)
        if paddingLength > 0 {
            writer.writeZeros(Int(paddingLength) - 1)
            writer.write(paddingLength)
        }
        return writer.bytes
    }

    /// Writes the whole packet into `output` without allocating (the extension block's
    /// bytes are copied from its stored array).
    /// - Returns: the number of bytes written.
    public func write(payload: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(WireError) -> Int {
        let total = serializedSize(payloadCount: payload.count)
        guard output.count >= total else {
            throw .invalid("output buffer of \(output.count) bytes cannot hold a \(total)-byte RTP packet")
        }
        output[0] = firstOctet
        output[1] = (marker ? 0x80 : 0) | payloadType & 0x7F
        output.setUInt16(sequenceNumber, at: 2)
        output.setUInt32(timestamp, at: 4)
        output.setUInt32(ssrc, at: 8)
        var position = RTPHeader.fixedSize
        for csrc in csrcs.prefix(15) {
            output.setUInt32(csrc, at: position)
            position += 4
        }
        if let block = extensionBlock {
            output.setUInt16(block.profile, at: position)
            output.setUInt16(UInt16(block.data.count / 4), at: position + 2)
            position += 4
            block.data.withUnsafeBytes { data in
                UnsafeMutableRawBufferPointer(rebasing: output[position..<(position + data.count)]).copyMemory(from: data)
            }
            position += block.data.count
        }
        UnsafeMutableRawBufferPointer(rebasing: output[position..<(position + payload.count)]).copyMemory(from: payload)
        position += payload.count
        if paddingLength > 0 {
            for i in position..<(position + Int(paddingLength) - 1) { output[i] = 0 }
            position += Int(paddingLength)
            output[position - 1] = paddingLength
        }
        return position
    }
}
