import Glibc
import OnAirWire

/// The broadcaster's one UDP socket (BUNDLE + rtcp-mux: every packet of the session uses it),
/// IPv4, non-blocking; the engine waits on it with poll(2) between media deadlines.
final class UDPSocket {
    let fd: Int32
    let localPort: UInt16
    private let receiveBuffer: UnsafeMutableRawBufferPointer

    /// Binds `0.0.0.0:0` (any interface, ephemeral port): the kernel picks the source address
    /// per destination, so one socket reaches a loopback relay and a remote one alike.
    init() throws(BroadcastError) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BroadcastError(.failure, "cannot open a UDP socket: \(String(cString: strerror(errno)))") }
        // Room for a keyframe burst of NACKed retransmissions and RTCP while we encode.
        var size: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.sockaddr(TransportAddress(ip: .v4(0), port: 0))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw BroadcastError(.failure, "cannot bind a UDP port: \(reason)")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        localPort = UInt16(bigEndian: local.sin_port)
        receiveBuffer = .allocate(byteCount: 2048, alignment: 16)
    }

    deinit {
        close(fd)
        receiveBuffer.deallocate()
    }

    /// Sends one datagram. A full socket buffer loses it, as UDP may: RTP recovers (NACK, PLI).
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

    /// Sends `head` then `body` as one datagram, gathered by sendmsg(2) (a TURN ChannelData header
    /// before a packet, RFC 8656 §12.4, without copying the packet).
    func send(head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, to destination: TransportAddress) {
        var address = Self.sockaddr(destination)
        var vectors = (iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count))
        withUnsafeMutablePointer(to: &address) { name in
            withUnsafeMutablePointer(to: &vectors) { pair in
                pair.withMemoryRebound(to: iovec.self, capacity: 2) { iov in
                    var message = msghdr(msg_name: UnsafeMutableRawPointer(name), msg_namelen: socklen_t(MemoryLayout<sockaddr_in>.size),
                                         msg_iov: iov, msg_iovlen: 2, msg_control: nil, msg_controllen: 0, msg_flags: 0)
                    _ = sendmsg(fd, &message, Int32(MSG_DONTWAIT))
                }
            }
        }
    }

    /// Waits up to `timeoutMilliseconds` for a datagram (0: just check).
    func wait(timeoutMilliseconds: Int32) {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, max(0, timeoutMilliseconds))
    }

    /// Reads one datagram if any is queued. The bytes are copied out: datagrams off this socket
    /// are control traffic (STUN, DTLS, RTCP), a few per second.
    func receive() -> (bytes: [UInt8], source: TransportAddress)? {
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &source) {
            $0.withMemoryRebound(to: Glibc.sockaddr.self, capacity: 1) {
                recvfrom(fd, receiveBuffer.baseAddress, receiveBuffer.count, Int32(MSG_DONTWAIT), $0, &length)
            }
        }
        guard count > 0 else { return nil }
        let address = TransportAddress(ip: .v4(UInt32(bigEndian: source.sin_addr.s_addr)), port: UInt16(bigEndian: source.sin_port))
        return (Array(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<count])), address)
    }

    static func sockaddr(_ address: TransportAddress) -> sockaddr_in {
        var out = sockaddr_in()
        out.sin_family = sa_family_t(AF_INET)
        out.sin_port = address.port.bigEndian
        if case .v4(let ip) = address.ip { out.sin_addr.s_addr = ip.bigEndian }
        return out
    }
}
