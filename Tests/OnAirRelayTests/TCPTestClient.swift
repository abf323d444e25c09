import Glibc
import OnAirForwarding
import OnAirWire

/// A plain blocking TCP connection to 127.0.0.1 (or ::1), for talking to the relay's ICE-TCP port the
/// way a peer would (RFC 4571 framing) and the way an attacker would. One test task only.
final class TCPTestClient {
    let fd: Int32
    /// The local port: the relay sees the connection as 127.0.0.1 and this.
    let port: UInt16

    init(port: Int, receiveTimeoutMilliseconds: Int = 5000, ipv6: Bool = false) throws {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw UDPTestClient.Failure(description: "socket(): \(errno)") }
        var timeout = timeval(tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: (receiveTimeoutMilliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let remote = ipv6 ? TransportAddress(ip: .v6(IPv6Address(high: 0, low: 1)), port: UInt16(port))
                          : TransportAddress(ip: .v4(0x7F00_0001), port: UInt16(port))
        var destination = DatagramDestination(remote)
        let connected = withUnsafePointer(to: &destination.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, destination.length) }
        }
        guard connected == 0 else { close(fd); throw UDPTestClient.Failure(description: "connect(): \(errno)") }
        self.fd = fd
        self.port = UDPTestClient.localPort(of: fd)
    }

    deinit { close(fd) }

    /// Sends `bytes` as they are (no framing); false when the connection is gone.
    @discardableResult
    func sendRaw(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Sends one packet with its RFC 4571 length.
    @discardableResult
    func send(_ packet: [UInt8]) -> Bool {
        sendRaw([UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet)
    }

    /// The next framed packet; nil at end of stream, on a reset or when nothing arrives in time.
    func receive() -> [UInt8]? {
        guard let header = read(2) else { return nil }
        return read(Int(header[0]) << 8 | Int(header[1]))
    }

    /// Whether the relay closed the connection (end of stream or a reset) within the receive
    /// timeout; anything it sent first is skipped.
    func closedByPeer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
        }
    }

    private func read(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, count - filled, 0) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
