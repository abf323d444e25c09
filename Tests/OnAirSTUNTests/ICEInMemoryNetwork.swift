import OnAirWire
@testable import OnAirSTUN

/// A lossless or lossy in-memory UDP path between an ICEControllingChecker (at `checkerAddress`)
/// and an ICELiteAgent (at `agentAddress`), driven by a manual clock. It is the medium only:
/// both ends are the real types.
struct ICEInMemoryNetwork {
    static let checkerAddress = TransportAddress(host: "192.0.2.10", port: 40000)!
    static let agentAddress = TransportAddress(host: "203.0.113.5", port: 3478)!
    static let deadAddress = TransportAddress(host: "203.0.113.99", port: 3478)!

    var checker: ICEControllingChecker
    var agent: ICELiteAgent
    var now: MonoTime
    /// Datagrams the checker sent, with their send time.
    var sent: [(time: MonoTime, datagram: STUNDatagram)] = []
    var checkerEvents: [ICECheckerEvent] = []
    var agentResults: [ICEReceiveResult] = []
    /// When false, nothing reaches the agent (the peer vanished).
    var agentReachable = true
    /// Drop the agent's answers to the first `dropResponses` requests.
    var dropResponses = 0

    init(checker: ICEControllingChecker, agent: ICELiteAgent, start: MonoTime = .seconds(1000)) {
        self.checker = checker
        self.agent = agent
        self.now = start
    }

    /// Polls the checker, delivers what it sends, feeds answers back and advances the clock to
    /// the checker's next timeout, until `end` or until the checker is idle.
    mutating func run(until end: MonoTime) {
        for _ in 0..<100_000 {
            for datagram in checker.poll(now: now) {
                sent.append((now, datagram))
                guard agentReachable, datagram.address == Self.agentAddress else { continue }
                let result = agent.receive(datagram.bytes, from: Self.checkerAddress, now: now)
                agentResults.append(result)
                guard let reply = result.datagram else { continue }
                if dropResponses > 0 { dropResponses -= 1; continue }
                if let event = checker.receive(reply.bytes, from: Self.agentAddress, now: now) {
                    checkerEvents.append(event)
                }
            }
            guard let next = checker.nextTimeout else { return }
            if next > end { now = end; return }
            // A receive may have made work due at once; then poll again without moving the clock.
            now = max(now, next)
        }
        fatalError("the checker never settled")
    }

    /// Times at which the checker sent something to `address`.
    func sendTimes(to address: TransportAddress) -> [MonoTime] {
        sent.filter { $0.datagram.address == address }.map(\.time)
    }
}
