/// RFC 8866 §5 parser: `<type>=<value>` lines in the order v, o, s, i, u, e, p, c, b, t, r, z,
/// k, a at session level, then m= sections of i, c, b, k, a lines.
///
/// Accepts CRLF or bare LF line ends and skips empty lines; any other deviation throws an
/// `SDPError` that names the line. Attributes this module gives typed views of are checked
/// here, so a malformed `a=rtpmap` is a parse error rather than a silently missing codec.
extension SessionDescription {
    /// Refuse descriptions larger than this many bytes; real offers are under 20 KB.
    public static let maximumLength = 256 * 1024

    public static func parse(_ text: String) throws(SDPError) -> SessionDescription {
        guard text.utf8.count <= maximumLength else {
            throw SDPError("session description is \(text.utf8.count) bytes, more than \(maximumLength)")
        }
        var lines = SDPLineReader(text)
        guard let first = try lines.next() else { throw SDPError("session description is empty") }
        guard first.type == "v", first.value == "0" else {
            throw SDPError(line: first.number, "the first line must be v=0")
        }
        var session = SessionDescription(origin: SDPOrigin(sessionID: "0"), timing: [])
        var sawOrigin = false, sawName = false
        var pending: SDPLine? = nil
        while let line = try lines.next() {
            if line.type == "m" { pending = line; break }
            do throws(SDPError) {
                try session.apply(line, sawOrigin: &sawOrigin, sawName: &sawName)
            } catch {
                throw error.located(at: line.number)
            }
        }
        guard sawOrigin else { throw SDPError("session description has no o= line") }
        guard sawName else { throw SDPError("session description has no s= line") }
        while let mediaLine = pending {
            pending = nil
            var section: MediaDescription
            do throws(SDPError) {
                section = try MediaDescription(parsingMediaLine: mediaLine.value)
            } catch {
                throw error.located(at: mediaLine.number)
            }
            while let line = try lines.next() {
                if line.type == "m" { pending = line; break }
                do throws(SDPError) {
                    try section.apply(line)
                } catch {
                    throw error.located(at: line.number)
                }
            }
            session.media.append(section)
        }
        return session
    }

    /// Parses UTF-8 bytes (an HTTP body); invalid UTF-8 is an error, not a replacement character.
    public static func parse(utf8 bytes: [UInt8]) throws(SDPError) -> SessionDescription {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SDPError("session description is not valid UTF-8")
        }
        return try parse(text)
    }

    private mutating func apply(_ line: SDPLine, sawOrigin: inout Bool, sawName: inout Bool) throws(SDPError) {
        let value = line.value
        switch line.type {
        case "o":
            guard !sawOrigin else { throw SDPError("second o= line") }
            origin = try SDPOrigin(parsing: value)
            sawOrigin = true
        case "s":
            guard !sawName else { throw SDPError("second s= line") }
            sessionName = String(value)
            sawName = true
        case "i": information = String(value)
        case "u": uri = String(value)
        case "e": emails.append(String(value))
        case "p": phones.append(String(value))
        case "c":
            guard connection == nil else { throw SDPError("second session-level c= line") }
            connection = try SDPConnection(parsing: value)
        case "b": bandwidths.append(try SDPBandwidth(parsing: value))
        case "t": timing.append(try SDPTiming(parsing: value))
        case "r":
            guard !timing.isEmpty else { throw SDPError("r= line before any t= line") }
            timing[timing.count - 1].repeats.append(String(value))
        case "z": timeZones = String(value)
        case "k": encryptionKey = String(value)
        case "a":
            let attribute = try SDPAttribute(parsing: value)
            try SDPAttributeValidator.validate(attribute, isRTP: true)
            attributes.append(attribute)
        case "v": throw SDPError("v= may only be the first line")
        default: throw SDPError("unknown line type \"\(line.type)=\"")
        }
    }
}

extension MediaDescription {
    /// Applies one line of a media section (RFC 8866 §5.14: i, c, b, k, a).
    mutating func apply(_ line: SDPLine) throws(SDPError) {
        switch line.type {
        case "i": information = String(line.value)
        case "c":
            guard connection == nil else { throw SDPError("second c= line in one media description") }
            connection = try SDPConnection(parsing: line.value)
        case "b": bandwidths.append(try SDPBandwidth(parsing: line.value))
        case "k": encryptionKey = String(line.value)
        case "a":
            let attribute = try SDPAttribute(parsing: line.value)
            try SDPAttributeValidator.validate(attribute, isRTP: isRTP)
            attributes.append(attribute)
        case "v", "o", "s", "u", "e", "p", "t", "r", "z":
            throw SDPError("\(line.type)= is not allowed inside a media description")
        default: throw SDPError("unknown line type \"\(line.type)=\"")
        }
    }
}
