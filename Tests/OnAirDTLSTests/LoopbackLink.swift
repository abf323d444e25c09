import OnAirDTLS
import OnAirWire

/// Carries datagrams between two real endpoints in memory, like a lossless (or, on request,
/// lossy) UDP path, and records everything else they report.
final class LoopbackLink {
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    /// Events (everything but `.send`) each side produced, in order.
    private(set) var clientEvents: [DTLSOutput] = []
    private(set) var serverEvents: [DTLSOutput] = []
    /// Every datagram that crossed the link, either way.
    private(set) var datagrams: [[UInt8]] = []
    private var toServer: [[UInt8]] = []
    private var toClient: [[UInt8]] = []

    init(client: DTLSEndpoint, server: DTLSEndpoint) {
        self.client = client
        self.server = server
    }

    /// Starts both sides and shuttles datagrams until neither has anything more to say.
    func handshake(now: MonoTime = .zero) {
        absorb(server.start(now: now), fromClient: false)
        absorb(client.start(now: now), fromClient: true)
        pump(now: now)
    }

    /// Takes outputs from one side: datagrams go on the wire, the rest is recorded.
    func absorb(_ outputs: [DTLSOutput], fromClient: Bool) {
        for output in outputs {
            if case .send(let datagram) = output {
                datagrams.append(datagram)
                if fromClient { toServer.append(datagram) } else { toClient.append(datagram) }
            } else if fromClient {
                clientEvents.append(output)
            } else {
                serverEvents.append(output)
            }
        }
    }

    /// Delivers queued datagrams until the link is quiet (bounded, so a ping-pong bug fails
    /// the test instead of hanging it).
    func pump(now: MonoTime = .zero) {
        var rounds = 0
        while (!toServer.isEmpty || !toClient.isEmpty) && rounds < 1_000 {
            rounds += 1
            if !toServer.isEmpty {
                let datagram = toServer.removeFirst()
                absorb(server.receive(datagram, now: now), fromClient: false)
            }
            if !toClient.isEmpty {
                let datagram = toClient.removeFirst()
                absorb(client.receive(datagram, now: now), fromClient: true)
            }
        }
    }

    /// Drops whatever is in flight (simulated loss).
    func dropInFlight() {
        toServer.removeAll()
        toClient.removeAll()
    }

    var clientKeys: DTLSSRTPKeys? { Self.keys(in: clientEvents) }
    var serverKeys: DTLSSRTPKeys? { Self.keys(in: serverEvents) }

    static func keys(in events: [DTLSOutput]) -> DTLSSRTPKeys? {
        for case .connected(let keys) in events { return keys }
        return nil
    }

    static func failure(in events: [DTLSOutput]) -> String? {
        for case .failed(let reason) in events { return reason }
        return nil
    }
}
