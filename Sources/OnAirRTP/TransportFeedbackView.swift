import OnAirWire

/// transport-cc feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1) read in
/// place: checked whole when made (every status has its chunk, no reserved symbol, every
/// received packet its delta), then walked without allocating: the relay takes one from each
/// viewer every 50-100 ms. ``TransportWideFeedback`` decodes through it.
public struct TransportFeedbackView: TransportFeedbackPackets {
    /// The FCI: the body after the common header.
    let body: UnsafeRawBufferPointer
    /// Where the receive deltas start (after the last chunk).
    let deltasStart: Int

    public var senderSSRC: UInt32 { body.uint32(at: 0) }
    public var mediaSSRC: UInt32 { body.uint32(at: 4) }
    public var baseSequenceNumber: UInt16 { body.uint16(at: 8) }
    public var statusCount: Int { Int(body.uint16(at: 10)) }
    public var referenceTime: Int32 {
        let reference = body.uint32(at: 12) >> 8
        return reference & 0x80_0000 != 0 ? Int32(reference) - 0x100_0000 : Int32(reference)
    }
    public var feedbackPacketCount: UInt8 { body[15] }

    public init(_ body: UnsafeRawBufferPointer) throws(WireError) {
        guard body.count >= 16 else { throw .invalid("RTCP transport-cc feedback needs 16 bytes, \(body.count) present") }
        self.body = body
        deltasStart = try Self.walkChunks(body, statusCount: Int(body.uint16(at: 10))) { _ in }
        var cursor = deltasStart
        var missing: WireError?
        try Self.walkChunks(body, statusCount: statusCount) { symbol in
            guard missing == nil else { return }
            switch symbol {
            case TransportWideFeedbackChunk.smallDelta:
                if cursor + 1 > body.count { missing = .invalid("transport-cc small receive delta missing") }
                cursor += 1
            case TransportWideFeedbackChunk.largeDelta:
                if cursor + 2 > body.count { missing = .invalid("transport-cc large receive delta missing") }
                cursor += 2
            default:
                break
            }
        }
        if let missing { throw missing }
        // What remains is zero padding to 32 bits; it carries nothing.
    }

    public func forEachPacket(_ body: (Int, Int16?) -> Void) {
        var cursor = deltasStart
        var index = 0
        let bytes = self.body
        _ = try? Self.walkChunks(bytes, statusCount: statusCount) { symbol in
            switch symbol {
            case TransportWideFeedbackChunk.smallDelta:
                body(index, Int16(bytes[cursor]))
                cursor += 1
            case TransportWideFeedbackChunk.largeDelta:
                body(index, Int16(bitPattern: bytes.uint16(at: cursor)))
                cursor += 2
            default:
                body(index, nil)
            }
            index += 1
        }
    }

    /// Calls `symbol` with each packet's status (§3.1.3, §3.1.4: run length and status vector
    /// chunks; a vector may describe packets past the status count, which are left out) and
    /// returns where the chunks end. Every chunk describes at least one packet, so a hostile
    /// count cannot make this outlive the bytes.
    @discardableResult
    static func walkChunks(_ body: UnsafeRawBufferPointer, statusCount: Int,
                           _ symbol: (UInt8) -> Void) throws(WireError) -> Int {
        var offset = 16
        var seen = 0
        while seen < statusCount {
            guard body.count - offset >= 2 else {
                throw .invalid("transport-cc chunks end after \(seen) of \(statusCount) packet statuses")
            }
            let chunk = body.uint16(at: offset)
            offset += 2
            if chunk & 0x8000 == 0 {
                let value = UInt8(chunk >> 13 & 0x3)
                guard value != 3 else { throw .invalid("transport-cc run length chunk uses reserved symbol 3") }
                let length = min(Int(chunk & 0x1FFF), statusCount - seen)
                for _ in 0..<length { symbol(value) }
                seen += length
            } else if chunk & 0x4000 == 0 {
                for bit in stride(from: 13, through: 0, by: -1) where seen < statusCount {
                    symbol(UInt8(chunk >> UInt16(bit) & 0x1))
                    seen += 1
                }
            } else {
                for pair in stride(from: 6, through: 0, by: -1) where seen < statusCount {
                    let value = UInt8(chunk >> UInt16(2 * pair) & 0x3)
                    guard value != 3 else { throw .invalid("transport-cc status vector uses reserved symbol 3") }
                    symbol(value)
                    seen += 1
                }
            }
        }
        return offset
    }
}
