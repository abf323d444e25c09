/// Drops DTLS records that are malformed before OpenSSL sees them.
///
/// RFC 6347 §4.1.2.7 says invalid records SHOULD be silently discarded, and OpenSSL does so
/// for most, but not all: an encrypted AES-GCM record too short to hold the explicit nonce
/// and tag makes OpenSSL 3.0 abort the whole association (measured for every length 1-23).
/// Anyone able to spoof one datagram on the 5-tuple could then tear down a session, so we
/// check the record framing (RFC 6347 §4.1) ourselves. (Forged CBC records are handled by
/// turning encrypt-then-MAC off, see ``DTLSContextFactory``.) Pure Swift, bounds-checked,
/// never traps.
enum DTLSRecordFilter {
    /// DTLSPlaintext header: type(1) version(2) epoch(2) sequence_number(6) length(2).
    static let headerLength = 13

    /// Smallest body of a protected record with the ciphers we allow: AES-GCM has an 8-byte
    /// explicit nonce and a 16-byte tag (RFC 5288 §3); AES-CBC at least a 16-byte IV and one
    /// block holding MAC and padding (RFC 5246 §6.2.3.2).
    static let minimumProtectedLength = 24

    /// Returns the datagram without its invalid records, or nil when none is left. A
    /// well-formed datagram comes back unchanged without copying.
    ///
    /// A record is kept when its content type is one DTLS 1.2 knows (RFC 5246 §6.2.1:
    /// change_cipher_spec 20, alert 21, handshake 22, application_data 23), its version is
    /// a DTLS one (major 0xFE, RFC 6347 §4.1), its length fits the datagram, and a record
    /// of a protected epoch (epoch > 0) is long enough to be authentic. Framing errors stop
    /// the scan: the rest of the datagram cannot be delimited.
    static func sanitize(_ datagram: [UInt8]) -> [UInt8]? {
        var kept: [Range<Int>] = []
        var offset = 0
        var dropped = false
        while offset < datagram.count {
            guard datagram.count - offset >= headerLength else { dropped = true; break }
            let type = datagram[offset]
            let versionMajor = datagram[offset + 1]
            let epoch = UInt16(datagram[offset + 3]) << 8 | UInt16(datagram[offset + 4])
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            let end = offset + headerLength + length
            guard (20...23).contains(type), versionMajor == 0xFE, end <= datagram.count else {
                dropped = true
                break
            }
            if epoch != 0 && length < minimumProtectedLength {
                dropped = true
            } else {
                kept.append(offset..<end)
            }
            offset = end
        }
        if !dropped { return datagram.isEmpty ? nil : datagram }
        guard !kept.isEmpty else { return nil }
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(kept.reduce(0) { $0 + $1.count })
        for range in kept { cleaned += datagram[range] }
        return cleaned
    }
}
