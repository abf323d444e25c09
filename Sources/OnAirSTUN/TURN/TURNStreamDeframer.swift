/// Splits what a TCP or TLS connection to a TURN server carries (RFC 8656 §12.5) into its
/// messages: STUN messages (20-byte header + the length in it) and ChannelData messages (4-byte
/// header + data, padded to 4 bytes). Bytes come in any split. A stream that starts with
/// anything else cannot be resynchronised: ``isBroken`` turns true and the rest is dropped.
public struct TURNStreamDeframer: Sendable {
    private var pending: [UInt8] = []
    /// Largest message accepted (a STUN message or ChannelData is under 64 KiB + header).
    public let maximumMessage: Int
    public private(set) var isBroken = false

    public init(maximumMessage: Int = 65_540) {
        self.maximumMessage = maximumMessage
        pending.reserveCapacity(4_096)
    }

    /// Takes the next bytes read and calls `message` with each complete message (STUN whole;
    /// ChannelData without its stream padding), valid during the call only.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, message: (UnsafeRawBufferPointer) -> Void) {
        guard !isBroken else { return }
        pending.append(contentsOf: bytes)
        var offset = 0
        while pending.count - offset >= 4 {
            let first = pending[offset]
            let length = Int(pending[offset + 2]) << 8 | Int(pending[offset + 3])
            let total: Int
            let used: Int
            if first & 0xC0 == 0 {
                total = 20 + length
                used = total
            } else if ChannelData.isChannelData(firstByte: first) {
                used = ChannelData.headerLength + length
                total = used + ChannelData.streamPadding(length)
            } else {
                isBroken = true
                pending.removeAll()
                return
            }
            guard total <= maximumMessage else {
                isBroken = true
                pending.removeAll()
                return
            }
            guard pending.count - offset >= total else { break }
            pending.withUnsafeBytes { raw in message(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + used)])) }
            offset += total
        }
        if offset > 0 { pending.removeFirst(offset) }
    }
}
