/// An IP address and port, and whether it is UDP or a TCP connection (ICE-TCP, RFC 6544),
/// independent of any socket library, so that the pure protocol core (STUN
/// XOR-MAPPED-ADDRESS, ICE candidates) can name peers. A peer's UDP socket and its TCP
/// connection may have the same address and port: the transport tells them apart.
///
/// A peer seen on one of several local sockets (a relay bound to an IPv4 and an IPv6 address,
/// or to two interfaces) also carries that socket's index, its ICE base (RFC 8445 §5.1.1.1):
/// answers must leave from the address the peer sent to, and a peer reaching two local
/// addresses is two candidate pairs. It is not part of ``description``.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Transport: UInt8, Hashable, Sendable {
        case udp
        /// A TCP connection carrying RFC 4571-framed packets (RFC 6544 §3).
        case tcp
    }

    public enum IP: Hashable, Sendable {
        /// Four octets in network order packed big-endian (127.0.0.1 = 0x7F000001).
        case v4(UInt32)
        /// Sixteen octets in network order.
        case v6(IPv6Address)
    }

    public var ip: IP
    public var port: UInt16
    public var transport: Transport
    /// The index of the local socket the peer was seen on (0 where there is one).
    public var base: UInt8

    public init(ip: IP, port: UInt16, transport: Transport = .udp, base: UInt8 = 0) {
        self.ip = ip
        self.port = port
        self.transport = transport
        self.base = base
    }

    /// Parses dotted IPv4 ("127.0.0.1") or an IPv6 literal ("::1", "fe80::1"); nil otherwise.
    public init?(host: String, port: UInt16, transport: Transport = .udp) {
        if let v4 = TransportAddress.parseIPv4(host) {
            self.init(ip: .v4(v4), port: port, transport: transport)
        } else if let v6 = TransportAddress.parseIPv6(host) {
            self.init(ip: .v6(IPv6Address(v6)), port: port, transport: transport)
        } else {
            return nil
        }
    }

    public var host: String {
        switch ip {
        case .v4(let a):
            return "\(a >> 24).\((a >> 16) & 0xFF).\((a >> 8) & 0xFF).\(a & 0xFF)"
        case .v6(let b):
            let groups = stride(from: 0, to: 16, by: 2).map { UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]) }
            // RFC 5952 §4.2: the longest run of two or more zero groups (the first of equals) is "::".
            var best = (start: 0, length: 0)
            var start = 0
            while start < 8 {
                var end = start
                while end < 8 && groups[end] == 0 { end += 1 }
                if end - start > best.length { best = (start, end - start) }
                start = end + 1
            }
            let text = groups.map { String($0, radix: 16) }
            guard best.length >= 2 else { return text.joined(separator: ":") }
            return text[..<best.start].joined(separator: ":") + "::" + text[(best.start + best.length)...].joined(separator: ":")
        }
    }

    public var isIPv4: Bool { if case .v4 = ip { return true } else { return false } }

    /// Whether this is a wildcard address ("0.0.0.0", "::"): a socket bound to it takes every
    /// address of its family.
    public var isWildcard: Bool {
        switch ip {
        case .v4(let a): return a == 0
        case .v6(let b): return b.high == 0 && b.low == 0
        }
    }

    /// Whether this is a loopback address (127/8, ::1).
    public var isLoopback: Bool {
        switch ip {
        case .v4(let a): return a >> 24 == 127
        case .v6(let b): return b.high == 0 && b.low == 1
        }
    }

    /// Whether a host as written in a URL or a config ("localhost", "127.0.0.1", "::1", "[::1]")
    /// names this machine's loopback.
    public static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || TransportAddress(host: bare, port: 0)?.isLoopback == true
    }

    /// Whether this is an IPv6 link-local address (fe80::/10), which means nothing off its link
    /// and is never advertised.
    public var isLinkLocal: Bool {
        guard case .v6(let b) = ip else { return false }
        return b.high >> 54 == 0x3FA
    }

    public var description: String {
        let endpoint = isIPv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
        return transport == .udp ? endpoint : "tcp:\(endpoint)"
    }

    static func parseIPv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    /// Splits "a::b" into ["a", "b"]; a string without "::" gives one element.
    private static func splitOnDoubleColon(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var previousWasColon = false
        for ch in text {
            if ch == ":" && previousWasColon {
                current.removeLast()
                parts.append(current)
                current = ""
                previousWasColon = false
                continue
            }
            previousWasColon = ch == ":"
            current.append(ch)
        }
        parts.append(current)
        return parts
    }

    static func parseIPv6(_ text: String) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        let halves = splitOnDoubleColon(text)
        guard halves.count <= 2 else { return nil }
        func groups(_ s: String) -> [UInt16]? {
            if s.isEmpty { return [] }
            var out: [UInt16] = []
            for g in s.split(separator: ":", omittingEmptySubsequences: false) {
                guard !g.isEmpty, g.count <= 4, let v = UInt16(g, radix: 16) else { return nil }
                out.append(v)
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}
