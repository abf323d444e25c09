import OnAirCrypto
import OnAirWire

/// Checks of MESSAGE-INTEGRITY and FINGERPRINT on the bytes exactly as received: both cover
/// the raw octets (padding included), so a re-encoded message is no substitute.
extension STUNMessage {
    /// RFC 8489 §14.5 MESSAGE-INTEGRITY: HMAC-SHA1 with `key` over the message up to the
    /// attribute, with the header length field rewritten to end just after it (so attributes
    /// that follow, such as FINGERPRINT, are excluded). Compared in constant time. False for
    /// anything that is not a well-formed STUN message with a 20-byte MESSAGE-INTEGRITY.
    public static func verifyMessageIntegrity(_ raw: [UInt8], key: [UInt8]) -> Bool {
        guard let offsets = try? STUNIntegrityOffsets.scan(raw), let mi = offsets.messageIntegrity else {
            return false
        }
        var covered = Array(raw[0..<mi])
        let adjusted = mi - STUNHeader.length + 24
        covered[2] = UInt8(adjusted >> 8)
        covered[3] = UInt8(adjusted & 0xFF)
        let expected = HMAC.sha1(key: key, data: covered)
        return constantTimeEqual(expected, raw[(mi + 4)..<(mi + 24)])
    }

    /// RFC 8489 §14.7 FINGERPRINT: the last attribute, CRC-32 of all preceding bytes XOR
    /// 0x5354554E. False when absent, not last, or wrong.
    public static func verifyFingerprint(_ raw: [UInt8]) -> Bool {
        guard let offsets = try? STUNIntegrityOffsets.scan(raw), let fp = offsets.fingerprint,
              fp + 8 == raw.count else { return false }
        let stored = UInt32(raw[fp + 4]) << 24 | UInt32(raw[fp + 5]) << 16 | UInt32(raw[fp + 6]) << 8 | UInt32(raw[fp + 7])
        return CRC32.checksum(raw[0..<fp]) ^ fingerprintXOR == stored
    }

    /// Compares a MAC without an early exit, so timing does not reveal how many leading bytes
    /// of a forged MAC were right.
    static func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}

/// Where MESSAGE-INTEGRITY and FINGERPRINT start in a raw, structurally valid message.
struct STUNIntegrityOffsets {
    var messageIntegrity: Int?
    var fingerprint: Int?

    static func scan(_ raw: [UInt8]) throws(WireError) -> STUNIntegrityOffsets {
        let header = try STUNHeader.parse(raw)
        var scanner = STUNAttributeScanner(raw, header: header)
        var result = STUNIntegrityOffsets()
        while let entry = try scanner.next() {
            if entry.type == .messageIntegrity, result.messageIntegrity == nil, result.fingerprint == nil {
                guard entry.length == 20 else { throw .invalid("MESSAGE-INTEGRITY must be 20 bytes") }
                result.messageIntegrity = entry.offset
            } else if entry.type == .fingerprint, result.fingerprint == nil {
                guard entry.length == 4 else { throw .invalid("FINGERPRINT must be 4 bytes") }
                result.fingerprint = entry.offset
            }
        }
        return result
    }
}
