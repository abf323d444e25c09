import Glibc
import OnAirForwarding
import OnAirWire

/// Opens and binds the media sockets (UDP and the ICE-TCP listeners) ourselves, so that we
/// keep the descriptors (the media path writes UDP with its own `sendmmsg` batches) and a
/// taken port fails the start.
enum BoundSocket {
    struct BindError: Error, CustomStringConvertible {
        let description: String
    }

    /// The address `host` names (an IPv4 or IPv6 literal) on `port`, or a clear error.
    static func address(_ host: String, port: Int) throws -> TransportAddress {
        guard let address = TransportAddress(host: host, port: UInt16(clamping: port)) else {
            throw BindError(description: "media bind address '\(host)' is not an IP address")
        }
        return address
    }

    /// A socket of `type` bound to `address`. An IPv6 socket takes IPv6 only (IPV6_V6ONLY,
    /// RFC 3493 §5.3): IPv4 has a socket of its own, so no peer is named by a v4-mapped address
    /// and "::" and "0.0.0.0" can share a port.
    static func open(_ address: TransportAddress, type: Int32, configure: (Int32) -> Void = { _ in }) throws -> Int32 {
        let fd = socket(address.isIPv4 ? AF_INET : AF_INET6, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BindError(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if !address.isIPv4 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        configure(fd)
        let destination = DatagramDestination(address)
        var storage = destination.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, destination.length) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            let kind = type == Int32(SOCK_STREAM.rawValue) ? "TCP" : "UDP"
            throw BindError(description: "cannot bind \(kind) \(address): \(reason)")
        }
        return fd
    }

    /// The port `fd` is bound to.
    static func port(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return 0 }
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset (2), in network order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }
}
