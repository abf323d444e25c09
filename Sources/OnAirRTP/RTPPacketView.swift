import OnAirWire

/// RFC 3550 §5.1 fields of a decrypted RTP packet, read once from raw bytes without copying
/// or allocating (the forwarding path's only header parse; ``RTPHeader`` is the general model
/// with CSRCs). Every bound is checked: the input may be hostile.
public struct RTPPacketView: Sendable, Equatable {
    public var payloadType: UInt8
    public var marker: Bool
    public var sequence: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    /// The payload, padding (RFC 3550 §5.1 P bit) removed.
    public var payloadRange: Range<Int>
    /// RFC 8285 form and data of the header extension block; nil without one, or when its
    /// profile is not RFC 8285's.
    public var extensionForm: RTPHeaderExtensionForm?
    public var extensionDataRange: Range<Int>

    public init(payloadType: UInt8, marker: Bool, sequence: UInt16, timestamp: UInt32, ssrc: UInt32, payloadRange: Range<Int>,
                extensionForm: RTPHeaderExtensionForm? = nil, extensionDataRange: Range<Int> = 12..<12) {
        self.payloadType = payloadType
        self.marker = marker
        self.sequence = sequence
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.payloadRange = payloadRange
        self.extensionForm = extensionForm
        self.extensionDataRange = extensionDataRange
    }

    /// Reads the header of `raw`; nil when it is not a well-formed RTP packet.
    @inline(__always)
    public init?(_ raw: UnsafeRawBufferPointer) {
        self.init(header: raw)
        guard removePadding(in: raw) else { return nil }
    }

    /// Reads the header of `raw` (fixed part, CSRCs, extension block) and leaves the payload
    /// running to its end, padding included: for a packet whose payload is still encrypted
    /// (SRTP leaves the header in the clear, RFC 3711 §3.1). ``removePadding(in:)`` finishes
    /// the view once the payload is decrypted in place. Nil when the header is malformed.
    @inline(__always)
    public init?(header raw: UnsafeRawBufferPointer) {
        guard raw.count >= 12, raw[0] >> 6 == 2 else { return nil }
        var offset = 12 + 4 * Int(raw[0] & 0x0F)
        extensionForm = nil
        extensionDataRange = offset..<offset
        if raw[0] & 0x10 != 0 {
            guard raw.count >= offset + 4 else { return nil }
            let profile = UInt16(raw[offset]) << 8 | UInt16(raw[offset + 1])
            let start = offset + 4
            offset = start + 4 * (Int(raw[offset + 2]) << 8 | Int(raw[offset + 3]))
            guard offset <= raw.count else { return nil }
            extensionForm = RTPHeaderExtensionForm(profile: profile)
            extensionDataRange = start..<offset
        }
        guard offset <= raw.count else { return nil }
        payloadType = raw[1] & 0x7F
        marker = raw[1] & 0x80 != 0
        sequence = UInt16(raw[2]) << 8 | UInt16(raw[3])
        timestamp = UInt32(raw[4]) << 24 | UInt32(raw[5]) << 16 | UInt32(raw[6]) << 8 | UInt32(raw[7])
        ssrc = UInt32(raw[8]) << 24 | UInt32(raw[9]) << 16 | UInt32(raw[10]) << 8 | UInt32(raw[11])
        payloadRange = offset..<raw.count
    }

    /// Where the header ends: 12 octets, the CSRCs and the extension block.
    @inline(__always)
    public var headerLength: Int { payloadRange.lowerBound }

    /// Takes RFC 3550 §5.1 padding (P bit; the last octet counts the padding octets, itself
    /// included) off the payload of `raw`, the plain packet this view was read from; false
    /// when the count does not fit the payload.
    @inline(__always)
    public mutating func removePadding(in raw: UnsafeRawBufferPointer) -> Bool {
        guard raw[0] & 0x20 != 0 else { return true }
        let end = payloadRange.upperBound
        guard end > payloadRange.lowerBound, end <= raw.count else { return false }
        let padding = Int(raw[end - 1])
        guard padding > 0, padding <= end - payloadRange.lowerBound else { return false }
        payloadRange = payloadRange.lowerBound..<(end - padding)
        return true
    }

    /// The data of the first RFC 8285 element with `id` in `raw` (the bytes this view was
    /// read from), or nil: no extension, no such element, or a malformed block.
    @inline(__always)
    public func extensionElement(id: UInt8, in raw: UnsafeRawBufferPointer) -> Range<Int>? {
        guard let extensionForm else { return nil }
        var found: Range<Int>?
        try? RTPHeaderExtensionWalker.forEach(in: raw, form: extensionForm, dataRange: extensionDataRange) { element, data in
            if element == id { found = data; return false }
            return true
        }
        return found
    }
}
