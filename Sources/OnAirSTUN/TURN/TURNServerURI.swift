/// A TURN server URI (RFC 7065 §3): `turn:host[:port][?transport=udp|tcp]` or `turns:...`,
/// the form ICE server lists and `Link: rel="ice-server"` headers use (RFC 9725 §4.6).
public struct TURNServerURI: Hashable, Sendable, CustomStringConvertible {
    public enum Transport: String, Hashable, Sendable {
        case udp
        case tcp
        /// `turns:` over TCP: TLS (RFC 8656 §3.1).
        case tls
    }

    /// A name, an IPv4 literal or an IPv6 literal (without brackets).
    public var host: String
    public var port: UInt16
    public var transport: Transport

    public init(host: String, port: UInt16, transport: Transport) {
        self.host = host
        self.port = port
        self.transport = transport
    }

    /// Parses a `turn:`/`turns:` URI; nil for anything else (`stun:` included), a bad port or
    /// an unknown transport. Defaults (RFC 7065 §3): port 3478 (`turns:` 5349), UDP for `turn:`,
    /// TCP (TLS) for `turns:`; `turns:?transport=udp` (DTLS) is not supported and gives nil.
    public init?(_ text: String) {
        let lower = text.lowercased()
        let secure: Bool
        if lower.hasPrefix("turn:") { secure = false } else if lower.hasPrefix("turns:") { secure = true } else { return nil }
        var rest = Substring(text.dropFirst(secure ? 6 : 5))
        var transportName: String?
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                if parts[0].lowercased() == "transport" { transportName = parts[1].lowercased() }
            }
            rest = rest[..<question]
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else {
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return nil }
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        guard !host.isEmpty else { return nil }
        var port: UInt16 = secure ? 5349 : 3478
        if let portText {
            guard let value = UInt16(portText), value > 0 else { return nil }
            port = value
        }
        switch (transportName, secure) {
        case (nil, false), ("udp", false): transport = .udp
        case ("tcp", false): transport = .tcp
        case (nil, true), ("tcp", true): transport = .tls
        default: return nil
        }
        self.host = String(host)
        self.port = port
    }

    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        switch transport {
        case .udp: return "turn:\(hostPart):\(port)?transport=udp"
        case .tcp: return "turn:\(hostPart):\(port)?transport=tcp"
        case .tls: return "turns:\(hostPart):\(port)?transport=tcp"
        }
    }
}
