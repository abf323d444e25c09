import Glibc
import OnAirForwarding
import OnAirWire
@testable import OnAirRelay

/// A plain blocking UDP socket on 127.0.0.1 (or ::1) for talking to the relay's media port the
/// way a peer would (and the way an attacker would). Used from one test task only.
final class UDPTestClient {
    let fd: Int32
    let port: UInt16
    /// The loopback address it is bound to and sends to.
    let loopback: TransportAddress

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(receiveTimeoutMilliseconds: Int = 1000, ipv6: Bool = false) throws {
        let loopback = ipv6 ? TransportAddress(ip: .v6(IPv6Address(high: 0, low: 1)), port: 0)
                            : TransportAddress(ip: .v4(0x7F00_0001), port: 0)
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket(): \(errno)") }
        var local = DatagramDestination(loopback)
        let bound = withUnsafePointer(to: &local.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, local.length) }
        }
        guard bound == 0 else { close(fd); throw Failure(description: "bind(): \(errno)") }
        var timeout = timeval(tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: (receiveTimeoutMilliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        self.fd = fd
        self.loopback = loopback
        self.port = UDPTestClient.localPort(of: fd)
    }

    deinit { close(fd) }

    /// The port a socket is bound to (getsockname).
    static func localPort(of fd: Int32) -> UInt16 {
        UInt16(BoundSocket.port(fd))
    }

    /// This client's own address, as the relay sees it.
    var address: TransportAddress {
        var address = loopback
        address.port = port
        return address
    }

    func send(_ bytes: [UInt8], toPort port: Int) {
        var remote = loopback
        remote.port = UInt16(port)
        var destination = DatagramDestination(remote)
        _ = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &destination.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, buffer.baseAddress, buffer.count, 0, $0, destination.length)
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
