import Glibc

/// A plain blocking UDP socket on 127.0.0.1 for talking to the relay's media port the way a
/// peer would (and the way an attacker would). Used from one test task only.
final class UDPTestClient {
    let fd: Int32
    let port: UInt16

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(receiveTimeoutMilliseconds: Int = 1000) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket(): \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw Failure(description: "bind(): \(errno)") }
        var timeout = timeval(tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: (receiveTimeoutMilliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
        self.port = UDPTestClient.localPort(of: fd)
    }

    deinit { close(fd) }

    /// The port a socket is bound to (getsockname).
    static func localPort(of fd: Int32) -> UInt16 {
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var local = sockaddr_in()
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: local.sin_port)
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    func send(_ bytes: [UInt8], toPort port: Int) {
        var address = Self.loopback(port: UInt16(port))
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The next datagram, or nil when none arrives within the receive timeout.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? Array(buffer[0..<count]) : nil
    }
}
