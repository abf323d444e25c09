import Glibc
import OnAirWire

/// A peer's address as the kernel wants it (`sockaddr_in`/`sockaddr_in6`), built once per
/// session so the send path does no conversion per packet.
public struct DatagramDestination: Sendable {
    public let address: TransportAddress
    package var storage: sockaddr_storage
    package var length: socklen_t

    public init(_ address: TransportAddress) {
        self.address = address
        var storage = sockaddr_storage()
        switch address.ip {
        case .v4(let ip):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = address.port.bigEndian
            sin.sin_addr = in_addr(s_addr: ip.bigEndian)
            withUnsafeBytes(of: &sin) { src in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: src) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6(let bytes):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = address.port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { dst in
                for i in 0..<min(16, bytes.count) { dst[i] = bytes[i] }
            }
            withUnsafeBytes(of: &sin6) { src in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: src) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        self.storage = storage
    }
}
