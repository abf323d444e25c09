/// Where the RTP header ends and what SRTP needs from it (RFC 3550 §5.1, §5.3.1), read from
/// raw bytes with every bound checked: the input may be hostile.
///
/// SRTP leaves the header (CSRCs and header extension included) in the clear and encrypts
/// the rest (RFC 3711 §3.1; RFC 7714 §8.2 authenticates it as AAD).
struct RTPHeaderLayout: Equatable {
    static let fixedLength = 12

    /// Bytes before the payload: 12 + 4·CC (+ 4 + 4·extension length if X is set).
    let length: Int
    let sequence: UInt16
    let ssrc: UInt32

    /// A header the caller has read or written already.
    init(length: Int, sequence: UInt16, ssrc: UInt32) {
        self.length = length
        self.sequence = sequence
        self.ssrc = ssrc
    }

    /// Parses the header of the `available` bytes at `packet` (for callers that have not:
    /// the broadcaster, the array API, tests).
    init(_ packet: UnsafeRawPointer, available: Int) throws(SRTPError) {
        guard available >= Self.fixedLength else { throw .tooShort(needed: Self.fixedLength, got: available) }
        let first = packet.load(as: UInt8.self)
        guard first >> 6 == 2 else { throw .malformed(reason: "RTP version is not 2") }
        var length = Self.fixedLength + 4 * Int(first & 0x0F)
        if first & 0x10 != 0 {
            guard available >= length + 4 else { throw .tooShort(needed: length + 4, got: available) }
            let words = packet.loadUnaligned(fromByteOffset: length + 2, as: UInt16.self).bigEndian
            length += 4 + 4 * Int(words)
        }
        guard available >= length else { throw .tooShort(needed: length, got: available) }
        self.length = length
        sequence = packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self).bigEndian
        ssrc = packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian
    }
}
