/// Small lexical helpers for SDP's US-ASCII grammar (RFC 8866 §9), free of Foundation.
///
/// Everything works on Substrings and UTF-8 bytes and never traps: hostile input only makes a
/// helper return nil.
enum SDPText {
    /// Splits a field list on SP. The grammar uses single spaces; tolerating runs of spaces and
    /// tabs costs nothing and keeps hand-written SDP working.
    static func fields(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    static func fields(_ text: String) -> [Substring] {
        fields(text[...])
    }

    /// Strict unsigned decimal: one or more ASCII digits, no sign, no overflow.
    static func decimal<T: FixedWidthInteger & UnsignedInteger>(_ text: Substring, as: T.Type = T.self) -> T? {
        guard !text.isEmpty, text.utf8.count <= 20 else { return nil }
        var value: T = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(T(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }

    static func decimal<T: FixedWidthInteger & UnsignedInteger>(_ text: String, as type: T.Type = T.self) -> T? {
        decimal(text[...], as: type)
    }

    /// Splits at the first `separator` byte: ("a", "b") for "a:b", ("a", nil) for "a".
    static func splitOnce(_ text: Substring, at separator: UInt8) -> (head: Substring, tail: Substring?) {
        guard let index = text.utf8.firstIndex(of: separator) else { return (text, nil) }
        let head = Substring(text.utf8[text.utf8.startIndex..<index])
        let tail = Substring(text.utf8[text.utf8.index(after: index)...])
        return (head, tail)
    }

    /// Drops leading and trailing SP / HTAB.
    static func trimmed(_ text: Substring) -> Substring {
        var bytes = text.utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return Substring(bytes)
    }

    /// RFC 8866 §9 `token`: visible ASCII except the tspecials.
    static func isToken(_ text: Substring) -> Bool {
        guard !text.isEmpty else { return false }
        for byte in text.utf8 {
            switch byte {
            case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x41...0x5A, 0x5E...0x7E: continue
            default: return false
            }
        }
        return true
    }

    /// True when the text has no SP, HTAB, CR, LF or NUL (a non-whitespace "byte-string" field).
    static func isWord(_ text: Substring) -> Bool {
        guard !text.isEmpty else { return false }
        for byte in text.utf8 where byte <= 0x20 || byte == 0x7F { return false }
        return true
    }

    /// ASCII case-insensitive equality (codec names, transports, parameter names).
    static func equalsIgnoringCase(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        for (x, y) in zip(a.utf8, b.utf8) where lower(x) != lower(y) { return false }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// Lower-cases ASCII letters only (unlike `lowercased()`, never changes length).
    static func asciiLowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map(lower), as: UTF8.self)
    }

    /// RFC 3550 §5.1: a payload type is 7 bits (rtpmap, fmtp and rtcp-fb formats).
    static func payloadType(_ text: Substring, in context: String) throws(SDPError) -> UInt8 {
        guard let value = decimal(text, as: UInt8.self), value <= 127 else {
            throw SDPError("\(context) payload type \"\(text)\" is not a number 0-127")
        }
        return value
    }
}
