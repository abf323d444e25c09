/// RTP, RTCP, STUN and DTLS over a TCP connection (RFC 6544 §3 for ICE-TCP): each packet
/// preceded by its length in 16 bits (RFC 4571 §2). This takes the connection's bytes as they
/// are read, in any split, and hands each complete packet on: in place when it lies whole in
/// what was read, else from one buffer of `maximumFrame` bytes allocated once. Nothing is
/// allocated per packet, and a peer cannot make it hold more than one packet: a packet longer
/// than `maximumFrame` is skipped (counted in ``oversizeFrames``), an empty one ignored.
public struct RFC4571Deframer: ~Copyable {
    public let maximumFrame: Int
    private let buffer: UnsafeMutableRawBufferPointer
    /// The length field's first byte, when only that has been read.
    private var lengthHigh: UInt8?
    /// The packet being gathered: its length and how much of it is in `buffer`.
    private var expected = 0
    private var gathered = 0
    /// Bytes still to skip of an oversize packet.
    private var skipping = 0
    public private(set) var oversizeFrames: UInt64 = 0

    public init(maximumFrame: Int = 2_048) {
        precondition(maximumFrame > 0 && maximumFrame <= 65_535, "a frame is at most 65,535 bytes")
        self.maximumFrame = maximumFrame
        buffer = .allocate(byteCount: maximumFrame, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Bytes of an unfinished packet held now (0 between packets).
    public var buffered: Int { gathered + (lengthHigh == nil ? 0 : 1) }

    /// Takes `bytes` (the next ones read from the connection) and calls `frame` with each
    /// packet completed by them, in order. A packet's bytes are valid only during the call.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, frame: (UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while offset < bytes.count {
            if skipping > 0 {
                let skipped = min(skipping, bytes.count - offset)
                skipping -= skipped
                offset += skipped
                continue
            }
            if expected == 0 {
                // The length field (it may arrive a byte at a time).
                let byte = bytes[offset]
                offset += 1
                guard let high = lengthHigh else {
                    lengthHigh = byte
                    continue
                }
                lengthHigh = nil
                let length = Int(high) << 8 | Int(byte)
                if length > maximumFrame {
                    oversizeFrames &+= 1
                    skipping = length
                } else {
                    expected = length  // 0: an empty packet, nothing to hand on
                }
                continue
            }
            let available = bytes.count - offset
            if gathered == 0 && available >= expected {
                // Whole in what was read: handed on in place.
                frame(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + expected)]))
                offset += expected
                expected = 0
                continue
            }
            let take = min(expected - gathered, available)
            UnsafeMutableRawBufferPointer(rebasing: buffer[gathered..<(gathered + take)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
            gathered += take
            offset += take
            if gathered == expected {
                frame(UnsafeRawBufferPointer(rebasing: buffer[0..<expected]))
                gathered = 0
                expected = 0
            }
        }
    }

    /// The 2-byte length field that goes before a packet of `length` bytes (RFC 4571 §2).
    public static func header(length: Int) -> (UInt8, UInt8) {
        precondition(length >= 0 && length <= 65_535, "an RFC 4571 packet is at most 65,535 bytes")
        return (UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length))
    }
}
