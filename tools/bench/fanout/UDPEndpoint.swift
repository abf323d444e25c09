import CLiveSocket
import Glibc
import OnAirWire

/// A non-blocking IPv4 UDP socket on 127.0.0.1 with an ephemeral port: one per viewer (the
/// relay tells viewers apart by their 5-tuple) and one for the publisher.
final class UDPEndpoint {
    let fd: Int32
    let localPort: UInt16

    /// - Parameters:
    ///   - receiveBuffer: SO_RCVBUF bytes (forced past rmem_max when we may: a keyframe burst
    ///     must fit while the loop is busy elsewhere).
    ///   - kernelTimestamps: SO_TIMESTAMPNS, a CLOCK_REALTIME arrival stamp on every datagram.
    init(receiveBuffer: Int32, kernelTimestamps: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var size = receiveBuffer
        let intSize = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, intSize) != 0 {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, intSize)
        }
        if kernelTimestamps {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, intSize)
        }
        var address = Self.sockaddr(TransportAddress(ip: .v4(0x7F00_0001), port: 0))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw BenchError("bind 127.0.0.1:0: \(reason)")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        localPort = UInt16(bigEndian: local.sin_port)
    }

    deinit { close(fd) }

    var localAddress: TransportAddress { TransportAddress(ip: .v4(0x7F00_0001), port: localPort) }

    /// Sends one datagram; losing one to a full buffer is what UDP does, so errors are ignored.
    func send(_ bytes: UnsafeRawBufferPointer, to destination: TransportAddress) {
        var address = Self.sockaddr(destination)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    func send(_ bytes: [UInt8], to destination: TransportAddress) {
        bytes.withUnsafeBytes { send($0, to: destination) }
    }

    static func sockaddr(_ address: TransportAddress) -> sockaddr_in {
        var out = sockaddr_in()
        out.sin_family = sa_family_t(AF_INET)
        out.sin_port = address.port.bigEndian
        if case .v4(let ip) = address.ip { out.sin_addr.s_addr = ip.bigEndian }
        return out
    }
}
