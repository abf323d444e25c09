import Glibc
import OnAirDTLS
import OnAirSTUN
import OnAirWire

/// Our allocation at a TURN server (RFC 8656) for one WHIP session: the I/O around a
/// ``TURNClient``. Over UDP (a socket of its own), TCP (``TCPMediaClient`` with TURN framing,
/// §12.5) or TLS over TCP (`turns:`, §3.1: the same framing in a ``TLSClientStream``, the
/// server's certificate verified) to the server. Packets to a peer go as ChannelData once the
/// channel is bound (§12.4: 4 bytes of header, gathered in front of the packet without a copy
/// over UDP; copied once into the TLS record's plaintext over TLS), before that as Send
/// indications (§11), held back until the peer's permission is installed (the server would drop
/// them, §9). What the server relays from peers is queued for ``receive()``.
final class TURNRelay {
    let uri: TURNServerURI
    let server: TransportAddress
    private var client: TURNClient
    private let udp: UDPSocket?
    private let tcp: TCPMediaClient?
    private var received: [(bytes: [UInt8], peer: TransportAddress)] = []
    /// Packets for peers whose permission is still being installed.
    private var held: [(bytes: [UInt8], peer: TransportAddress)] = []
    /// The bound channels, looked up per packet (one or two entries).
    private var channels: [(peer: TransportAddress, number: UInt16)] = []
    private let header = UnsafeMutableRawBufferPointer.allocate(byteCount: ChannelData.headerLength, alignment: 4)
    /// The last refusal or failure the server gave (for messages).
    private(set) var lastProblem: String?

    /// Opens the transport to the server of `server` (a `turn:`/`turns:` URI with credentials);
    /// the host may be a name (resolved to IPv4 here, once). `caFile` adds CAs to the system's
    /// for a `turns:` server's certificate.
    init(_ iceServer: ICEServer, caFile: String? = nil) throws(BroadcastError) {
        guard let uri = iceServer.turnURI, let username = iceServer.username, let credential = iceServer.credential else {
            throw BroadcastError(.usage, "'\(iceServer.url)' is not a turn: URI with a username and credential")
        }
        guard let ip = Self.resolve(uri.host) else {
            throw BroadcastError(.relayUnreachable, "cannot resolve the TURN server \(uri.host) to an IPv4 address")
        }
        self.uri = uri
        pathName = "relay-" + uri.transport.rawValue
        let reliable = uri.transport != .udp
        server = TransportAddress(ip: ip, port: uri.port, transport: reliable ? .tcp : .udp)
        client = TURNClient(username: username, password: credential, reliable: reliable, software: "OnAir broadcast")
        if reliable {
            udp = nil
            var tls: TLSClientStream?
            if uri.transport == .tls {
                do {
                    tls = try TLSClientStream(serverName: uri.host, caFile: caFile)
                } catch {
                    throw BroadcastError(.usage, "TURN \(uri): \(error.description)")
                }
            }
            tcp = try TCPMediaClient(remote: server, framing: .turn, tls: tls)
        } else {
            udp = try UDPSocket()
            tcp = nil
        }
    }

    deinit { header.deallocate() }

    /// "relay-udp", "relay-tcp" or "relay-tls": the selected path when media goes through this relay.
    let pathName: String
    var relayedAddress: TransportAddress? { client.relayedAddress }
    var mappedAddress: TransportAddress? { client.mappedAddress }
    var state: TURNClient.State { client.state }

    /// Allocates (401, credentials, maybe 438: a few round trips), serving the transport every
    /// few milliseconds; throws after `timeout` or when the server refuses.
    func allocate(timeout: Duration, stopRequested: () -> Bool) async throws(BroadcastError) {
        let deadline = MonoTime.now() + timeout
        client.allocate(now: MonoTime.now())
        while true {
            service(now: MonoTime.now())
            switch client.state {
            case .allocated: return
            case .failed(let reason): throw BroadcastError(.relayUnreachable, "TURN \(uri): \(reason)")
            default: break
            }
            if let failure = tcp?.failure { throw BroadcastError(.relayUnreachable, "TURN \(uri): \(failure)") }
            if stopRequested() { throw BroadcastError(.relayUnreachable, "stopped while allocating at \(uri)") }
            if MonoTime.now() > deadline {
                throw BroadcastError(.relayUnreachable, "no TURN allocation from \(uri) within \(timeout) "
                                     + (uri.transport == .udp ? "(is UDP to it blocked? try ?transport=tcp)" : ""))
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Installs permissions for the relay's candidates (RFC 8656 §10), before checks go to them.
    func permit(_ peers: [TransportAddress]) {
        client.permit(peers, now: MonoTime.now())
        pump(now: MonoTime.now())
    }

    /// Bytes waiting for the kernel on a TCP or TLS connection to the server (0 over UDP).
    var queuedBytes: Int { tcp?.queuedBytes ?? 0 }

    /// Sends one packet to `peer` through the server: ChannelData on a bound channel, else a Send
    /// indication (and a ChannelBind for the next ones).
    func send(_ bytes: UnsafeRawBufferPointer, to peer: TransportAddress) {
        if let number = channels.first(where: { $0.peer == peer })?.number {
            ChannelData.writeHeader(channel: number, length: bytes.count, into: header)
            if let udp {
                udp.send(head: UnsafeRawBufferPointer(header), body: bytes, to: server)
            } else if let tcp {
                tcp.send(head: UnsafeRawBufferPointer(header), body: bytes, padding: ChannelData.streamPadding(bytes.count))
            }
            return
        }
        guard client.state == .allocated else { return }
        let now = MonoTime.now()
        client.bindChannel(to: peer, now: now)
        if client.isPermitted(peer) {
            transmit(client.sendIndication(Array(bytes), to: peer))
        } else if held.count < 64 {
            held.append((Array(bytes), peer))
        }
        pump(now: now)
    }

    /// Reads what the server sent and runs the client's timers (refreshes, retransmissions).
    func service(now: MonoTime) {
        if let udp {
            while let (bytes, source) = udp.receive() {
                if source == server { handle(bytes, now: now) }
            }
        } else if let tcp {
            tcp.flush()
            tcp.receive { message in handle(Array(message), now: now) }
        }
        if let due = client.nextTimeout, due <= now { pump(now: now) }
    }

    /// The next packet a peer sent us through the server.
    func receive() -> (bytes: [UInt8], peer: TransportAddress)? {
        received.isEmpty ? nil : received.removeFirst()
    }

    /// What to poll(2) on: the socket, and whether there is queued TCP to write.
    var descriptor: pollfd {
        if let tcp { return pollfd(fd: tcp.fd, events: Int16(POLLIN) | (tcp.wantsWrite ? Int16(POLLOUT) : 0), revents: 0) }
        return pollfd(fd: udp?.fd ?? -1, events: Int16(POLLIN), revents: 0)
    }

    /// Packets lost because the TCP connection's queue was full.
    var dropped: UInt64 { tcp?.dropped ?? 0 }

    /// Deletes the allocation (Refresh with LIFETIME 0, RFC 8656 §7.2) and waits briefly for
    /// the answer, so the server frees the relayed port now rather than at the lifetime's end.
    func close() {
        guard client.state == .allocated else { return }
        client.deallocate(now: MonoTime.now())
        pump(now: MonoTime.now())
        let until = MonoTime.now() + .milliseconds(300)
        while client.state == .deallocating, MonoTime.now() < until {
            var descriptor = descriptor
            _ = poll(&descriptor, 1, 10)
            service(now: MonoTime.now())
        }
        tcp?.closeTLS()
    }

    private func handle(_ message: [UInt8], now: MonoTime) {
        guard let first = message.first else { return }
        if ChannelData.isChannelData(firstByte: first) {
            message.withUnsafeBytes { raw in
                guard let (number, range) = ChannelData.parse(raw), let peer = client.peer(forChannel: number) else { return }
                received.append((Array(message[range]), peer))
            }
            return
        }
        switch client.receive(message, now: now) {
        case .data(let peer, let bytes)?:
            received.append((bytes, peer))
        case .permissionsGranted?:
            releaseHeld()
        case .channelBound(let peer, let number)?:
            channels.removeAll { $0.peer == peer }
            channels.append((peer, number))
            releaseHeld()  // a ChannelBind installs the permission too (§12)
        case .requestFailed(let reason)?, .failed(let reason)?:
            lastProblem = reason
            Console.error("broadcast: \(reason)")
        case .allocated?, .refreshed?, .deallocated?, nil:
            break
        }
        pump(now: now)
    }

    /// Sends the held packets whose peers are permitted now, in order.
    private func releaseHeld() {
        let ready = held.filter { client.isPermitted($0.peer) }
        held.removeAll { client.isPermitted($0.peer) }
        for (bytes, peer) in ready { transmit(client.sendIndication(bytes, to: peer)) }
    }

    /// Sends what the client has to send now (new requests, retransmissions, refreshes).
    private func pump(now: MonoTime) {
        for bytes in client.poll(now: now) { transmit(bytes) }
    }

    private func transmit(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            if let udp { udp.send(raw, to: server) } else { tcp?.send(raw) }
        }
    }

    /// An IPv4 literal as is, a name through getaddrinfo(3) (the first IPv4 address).
    private static func resolve(_ host: String) -> TransportAddress.IP? {
        if let literal = TransportAddress(host: host, port: 0), literal.isIPv4 { return literal.ip }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        guard let address = first.pointee.ai_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { return nil }
        let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
        return .v4(ip)
    }
}
