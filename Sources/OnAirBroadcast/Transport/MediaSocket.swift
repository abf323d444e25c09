import Glibc
import OnAirWire

/// Every packet of the broadcaster's session goes through this: the one UDP socket (BUNDLE +
/// rtcp-mux) and, for the relay's passive ICE-TCP candidates (RFC 6544), an active TCP
/// connection to each, opened when ICE first checks it. Which one a packet takes is the
/// destination's transport, so ICE tries both and nominates the pair that works. With a TURN
/// allocation (``relay``), a destination that is a ``RelayedPeerAlias`` goes through it: the
/// relay candidate's pairs.
final class MediaSocket {
    let udp: UDPSocket
    /// Our TURN allocation for this session, when there is one.
    var relay: TURNRelay?
    private var connections: [TCPMediaClient] = []
    /// Packets read off TCP connections, waiting for ``receive()``.
    private var received: [(bytes: [UInt8], source: TransportAddress)] = []

    init() throws(BroadcastError) {
        udp = try UDPSocket()
    }

    var localPort: UInt16 { udp.localPort }

    func send(_ bytes: UnsafeRawBufferPointer, to destination: TransportAddress) {
        if let relay, let peer = RelayedPeerAlias.peer(of: destination) {
            relay.send(bytes, to: peer)
            return
        }
        guard destination.transport == .tcp else {
            udp.send(bytes, to: destination)
            return
        }
        if let connection = connections.first(where: { $0.remote == destination && !$0.failed }) {
            connection.send(bytes)
        } else if let connection = try? TCPMediaClient(remote: destination) {
            connections.removeAll { $0.remote == destination }
            connections.append(connection)
            connection.send(bytes)
        }
    }

    /// Bytes queued on the stream that carries packets to `destination` (an ICE-TCP connection,
    /// or TCP/TLS to the TURN server); 0 over UDP, where the kernel drops instead of queueing.
    func backlog(to destination: TransportAddress) -> Int {
        if let relay, RelayedPeerAlias.peer(of: destination) != nil { return relay.queuedBytes }
        guard destination.transport == .tcp else { return 0 }
        return connections.first { $0.remote == destination && !$0.failed }?.queuedBytes ?? 0
    }

    func send(_ bytes: [UInt8], to destination: TransportAddress) {
        bytes.withUnsafeBytes { send($0, to: destination) }
    }

    /// Waits up to `timeoutMilliseconds` for anything to read, or room to write what waits.
    func wait(timeoutMilliseconds: Int32) {
        guard !connections.isEmpty || relay != nil else {
            udp.wait(timeoutMilliseconds: timeoutMilliseconds)
            return
        }
        var descriptors = [pollfd(fd: udp.fd, events: Int16(POLLIN), revents: 0)]
        if let relay { descriptors.append(relay.descriptor) }
        for connection in connections where !connection.failed {
            descriptors.append(pollfd(fd: connection.fd, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0),
                                      revents: 0))
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), max(0, timeoutMilliseconds))
    }

    /// The next packet from the relay, UDP first; nil when none is queued. What comes through
    /// the TURN server has the alias of the peer that sent it as its source.
    func receive() -> (bytes: [UInt8], source: TransportAddress)? {
        if let datagram = udp.receive() { return datagram }
        if let relay {
            relay.service(now: MonoTime.now())
            if let (bytes, peer) = relay.receive() { return (bytes, RelayedPeerAlias.alias(of: peer)) }
        }
        if received.isEmpty {
            for connection in connections {
                connection.flush()
                connection.receive { received.append((Array($0), connection.remote)) }
            }
        }
        return received.isEmpty ? nil : received.removeFirst()
    }

    /// How packets to `destination` travel, for the status line and `--stats-json`: "udp", "tcp"
    /// (ICE-TCP, RFC 6544), or through the TURN server "relay-udp"/"relay-tcp".
    func pathName(to destination: TransportAddress) -> String {
        if RelayedPeerAlias.peer(of: destination) != nil { return relay?.pathName ?? "relay" }
        return destination.transport == .tcp ? "tcp" : "udp"
    }

    /// Packets lost because a TCP connection's queue was full.
    var tcpDropped: UInt64 { connections.reduce(0) { $0 + $1.dropped } + (relay?.dropped ?? 0) }
}
