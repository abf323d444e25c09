import Glibc
import OnAirWire

/// This machine's addresses for host candidates (RFC 8445 §5.1.1.1): those of every interface
/// that is up, without loopback and IPv6 link-local addresses, which mean nothing to a peer
/// elsewhere (RFC 8445 §5.1.1.1 leaves out link-local IPv6 unless the peer is on the link).
public enum InterfaceAddresses {
    /// The addresses in the kernel's interface order, IPv4 first then IPv6 when both are asked.
    public static func list(ipv4: Bool = true, ipv6: Bool = true) -> [TransportAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var v4: [TransportAddress] = []
        var v6: [TransportAddress] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let raw = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0,
                  entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            if ipv4 && raw.pointee.sa_family == sa_family_t(AF_INET) {
                let ip = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
                v4.append(TransportAddress(ip: .v4(ip), port: 0))
            } else if ipv6 && raw.pointee.sa_family == sa_family_t(AF_INET6) {
                var bytes = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let address = TransportAddress(ip: .v6(withUnsafeBytes(of: &bytes) { IPv6Address(networkBytes: $0) }), port: 0)
                if !address.isLinkLocal && !address.isLoopback { v6.append(address) }
            }
        }
        return v4 + v6
    }
}
