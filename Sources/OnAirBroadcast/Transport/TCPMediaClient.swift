import Glibc
import OnAirDTLS
import OnAirSTUN
import OnAirWire

/// One active ICE-TCP connection to the relay's passive candidate (RFC 6544 §4.1: the
/// broadcaster connects, the relay listens): every packet framed by its length (RFC 4571 §2);
/// or, with ``Framing/turn``, the connection to a TURN server (RFC 8656 §12.5), in TLS when
/// given a ``TLSClientStream`` (`turns:`, RFC 8656 §3.1: the same framing inside TLS).
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
    /// Why the connection failed (refused, reset, closed, the TLS handshake), for messages.
    private(set) var failure: String?
    private let tls: TLSClientStream?
    /// A framed packet gathered for one TLS write (one record, not three); with TLS only.
    private let plaintext: UnsafeMutableRawBufferPointer?
    private var outgoing: [UInt8] = []
    private var sentOffset = 0
    private var deframer = RFC4571Deframer(maximumFrame: 2_048)
    private var turnDeframer = TURNStreamDeframer()
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// Bytes of ours that may wait for the kernel (about 200 ms at 2.5 Mbit/s); the kernel
    /// itself keeps little unsent (`TCP_NOTSENT_LOWAT`), so this is the queue that shows.
    static let maximumQueued = 64 * 1024
    private(set) var dropped: UInt64 = 0

    /// Bytes of ours the kernel has not taken yet (TLS records included).
    var queuedBytes: Int { outgoing.count - sentOffset }

    init(remote: TransportAddress, framing: Framing = .rfc4571, tls: TLSClientStream? = nil) throws(BroadcastError) {
        self.remote = remote
        self.framing = framing
        self.tls = tls
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
        plaintext = tls == nil ? nil : .allocate(byteCount: 2 + 65_535 + 3, alignment: 16)
        outgoing.reserveCapacity(Self.maximumQueued + 2_048)
        takeTLSOutput()  // the ClientHello, sent once the connect completes
    }

    deinit {
        if fd >= 0 { close(fd) }
        readBuffer.deallocate()
        plaintext?.deallocate()
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
        if let plaintext {
            var count = 0
            if framing == .rfc4571 {
                (plaintext[0], plaintext[1]) = RFC4571Deframer.header(length: packet.count)
                count = 2
            }
            plaintext.baseAddress!.advanced(by: count).copyMemory(from: packet.baseAddress!, byteCount: packet.count)
            encrypt(count + packet.count)
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
        if let plaintext {
            guard head.count + body.count + padding <= plaintext.count else { return }
            let base = plaintext.baseAddress!
            base.copyMemory(from: head.baseAddress!, byteCount: head.count)
            if body.count > 0 { base.advanced(by: head.count).copyMemory(from: body.baseAddress!, byteCount: body.count) }
            base.advanced(by: head.count + body.count).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
            encrypt(head.count + body.count + padding)
            return
        }
        outgoing.append(contentsOf: head)
        outgoing.append(contentsOf: body)
        for _ in 0..<padding { outgoing.append(0) }
        flush()
    }

    /// Ends TLS with close_notify (RFC 8446 §6.1) and sends what the kernel takes.
    func closeTLS() {
        guard let tls, !failed else { return }
        tls.close()
        takeTLSOutput()
        flush()
    }

    /// Sends what is queued, as far as the kernel takes it.
    func flush() {
        guard !failed else { return }
        if !connected {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { fail(String(cString: strerror(error))); return }
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
                if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { fail(String(cString: strerror(errno))) }
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
                if let tls {
                    tls.receive(bytes) { deframe($0, packet) }
                    if case .failed(let reason) = tls.state { fail(reason); return }
                    if tls.hasOutput {
                        takeTLSOutput()
                        flush()
                    }
                } else {
                    deframe(bytes, packet)
                }
                continue
            }
            if count == 0 {
                fail(tls?.state == .closed ? "closed by the server (TLS close_notify)" : "closed by the server")
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                fail(String(cString: strerror(errno)))
            }
            return
        }
    }

    private func deframe(_ bytes: UnsafeRawBufferPointer, _ packet: (UnsafeRawBufferPointer) -> Void) {
        if framing == .turn { turnDeframer.feed(bytes, message: packet) } else { deframer.feed(bytes, frame: packet) }
    }

    /// Encrypts the first `count` bytes of ``plaintext`` and queues the record.
    private func encrypt(_ count: Int) {
        guard let tls, let plaintext else { return }
        guard tls.write(UnsafeRawBufferPointer(rebasing: plaintext[0..<count])) else {
            if case .failed(let reason) = tls.state { fail(reason) } else { dropped &+= 1 }
            return
        }
        takeTLSOutput()
        flush()
    }

    /// Moves what TLS has for the server (records, handshake messages, alerts) to the queue.
    /// Never dropped past ``maximumQueued``: a lost piece of a TLS stream would end it.
    private func takeTLSOutput() {
        tls?.takeOutput { outgoing.append(contentsOf: $0) }
    }

    /// The connection is over (refused, reset, closed by the relay, TLS failed): consent runs out for it.
    private func fail(_ reason: String) {
        failed = true
        if failure == nil { failure = reason }
        close(fd)
        fd = -1
    }
}
