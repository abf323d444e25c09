import Glibc
import OnAirSTUN
import OnAirWire

/// One active ICE-TCP connection to the relay's passive candidate (RFC 6544 §4.1: the
/// broadcaster connects, the relay listens): every packet framed by its length (RFC 4571 §2);
/// or, with ``Framing/turn``, the connection to a TURN server (RFC 8656 §12.5).
/// Non-blocking: the connect completes in the background, and what the kernel will not take
/// yet waits in a bounded buffer of ours; past it a packet is lost as a full UDP socket loses
/// one, and RTP recovers (NACK, PLI) while the rate controller sees the delay.
final class TCPMediaClient {
    /// How packets are delimited on the stream.
    enum Framing {
        /// A 16-bit length before each packet (RFC 4571 §2): ICE-TCP to the relay.
        case rfc4571
        /// Self-delimiting STUN and padded ChannelData messages (RFC 8656 §12.5): to a TURN server.
        case turn
    }

    let remote: TransportAddress
    let framing: Framing
    private(set) var fd: Int32
    private var connected = false
    private(set) var failed = false
    private var outgoing: [UInt8] = []
    private var sentOffset = 0
    private var deframer = RFC4571Deframer(maximumFrame: 2_048)
    private var turnDeframer = TURNStreamDeframer()
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// Bytes of ours that may wait for the kernel (about 200 ms at 2.5 Mbit/s); the kernel
    /// itself keeps little unsent (`TCP_NOTSENT_LOWAT`), so this is the queue that shows.
    static let maximumQueued = 64 * 1024
    private(set) var dropped: UInt64 = 0

    init(remote: TransportAddress, framing: Framing = .rfc4571) throws(BroadcastError) {
        self.remote = remote
        self.framing = framing
        let fd = socket(remote.isIPv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                        | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BroadcastError(.failure, "cannot open a TCP socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var lowWater: Int32 = 16 * 1024
        setsockopt(fd, Int32(IPPROTO_TCP), 25 /* TCP_NOTSENT_LOWAT */, &lowWater, socklen_t(MemoryLayout<Int32>.size))
        var address = UDPSocket.sockaddr(remote)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw BroadcastError(.failure, "cannot connect to \(remote): \(reason)")
        }
        self.fd = fd
        connected = result == 0
        readBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
        outgoing.reserveCapacity(Self.maximumQueued + 2_048)
    }

    deinit {
        if fd >= 0 { close(fd) }
        readBuffer.deallocate()
    }

    /// Whether there is anything for the kernel to take (poll for POLLOUT), or a connect pending.
    var wantsWrite: Bool { !failed && (!connected || sentOffset < outgoing.count) }

    /// Queues one packet, framed as ``framing`` says (a TURN-framed packet is a whole STUN
    /// message), and sends what the kernel takes.
    func send(_ packet: UnsafeRawBufferPointer) {
        guard !failed, packet.count <= 65_535 else { return }
        guard outgoing.count - sentOffset + 2 + packet.count <= Self.maximumQueued else {
            dropped &+= 1
            return
        }
        if framing == .rfc4571 {
            let (high, low) = RFC4571Deframer.header(length: packet.count)
            outgoing.append(high)
            outgoing.append(low)
        }
        outgoing.append(contentsOf: packet)
        flush()
    }

    /// Queues `head`, `body` and `padding` zero bytes as one message (a ChannelData header, the
    /// packet and its padding to 4 bytes, RFC 8656 §12.5) and sends what the kernel takes.
    func send(head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, padding: Int) {
        guard !failed else { return }
        guard outgoing.count - sentOffset + head.count + body.count + padding <= Self.maximumQueued else {
            dropped &+= 1
            return
        }
        outgoing.append(contentsOf: head)
        outgoing.append(contentsOf: body)
        for _ in 0..<padding { outgoing.append(0) }
        flush()
    }

    /// Sends what is queued, as far as the kernel takes it.
    func flush() {
        guard !failed else { return }
        if !connected {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { fail(); return }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, 0) > 0, descriptor.revents & Int16(POLLOUT) != 0 else { return }
            connected = true
        }
        while sentOffset < outgoing.count {
            let count = outgoing.withUnsafeBytes { bytes in
                Glibc.send(fd, bytes.baseAddress! + sentOffset, bytes.count - sentOffset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if count > 0 {
                sentOffset += count
            } else {
                if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { fail() }
                break
            }
        }
        if sentOffset == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            sentOffset = 0
        } else if sentOffset > Self.maximumQueued / 2 {
            outgoing.removeFirst(sentOffset)
            sentOffset = 0
        }
    }

    /// Reads what arrived and hands each complete packet to `packet`.
    func receive(_ packet: (UnsafeRawBufferPointer) -> Void) {
        guard !failed && connected else { return }
        while true {
            let count = recv(fd, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
                if framing == .turn { turnDeframer.feed(bytes, message: packet) } else { deframer.feed(bytes, frame: packet) }
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { fail() }
            return
        }
    }

    /// The connection is over (refused, reset, closed by the relay): consent runs out for it.
    private func fail() {
        failed = true
        close(fd)
        fd = -1
    }
}
