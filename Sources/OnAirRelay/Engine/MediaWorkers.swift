import Logging
import NIOCore
import NIOPosix
import OnAirDTLS
import OnAirForwarding
import Synchronization

/// The relay's media workers (`media.workers`): one ``RelayEngine`` per worker, each on an
/// event loop (thread) of its own with its own UDP socket on `media.udp_port + i`, as
/// mediasoup runs a worker per core. The kernel cannot steer a peer's first STUN packet to
/// the right worker behind one port, so a session is placed when its answer is built: its
/// candidate carries its worker's port, and no datagram ever crosses workers.
///
/// A room lives on one worker: its first publisher goes to the least-loaded worker, and the
/// room's viewers, later publishers and control requests follow it there. Rooms spread over
/// the cores; one room's audience is still bounded by its worker's core.
public final class MediaWorkers: Sendable {
    public let engines: [RelayEngine]
    let sockets: [UDPMediaSocket]
    public let hls: HLSService
    /// The workers' threads when this made them (nil: loops lent by the caller).
    private let ownGroup: MultiThreadedEventLoopGroup?
    /// Which worker each room lives on.
    private let placement = Mutex<[String: Int]>([:])

    /// Binds `config.media.workers` sockets (ports `udp_port + i`, or each its own ephemeral
    /// port when `udp_port` is 0) and makes an engine for each, on a loop of its own;
    /// `group`: take the loops from this group instead (tests, which start relays by the hundred).
    public init(config: RelayConfig, certificate: DTLSCertificate, hls: HLSService, logger: Logger,
                group lent: (any EventLoopGroup)? = nil) throws {
        let count = config.media.workerCount
        ownGroup = lent == nil ? MultiThreadedEventLoopGroup(numberOfThreads: count) : nil
        let group: any EventLoopGroup = lent ?? ownGroup!
        var sockets: [UDPMediaSocket] = []
        var engines: [RelayEngine] = []
        do {
            for index in 0..<count {
                let port = config.media.udpPort == 0 ? 0 : config.media.udpPort + index
                let socket = try UDPMediaSocket(host: config.media.bind, port: port)
                sockets.append(socket)
                var workerLogger = logger
                if count > 1 { workerLogger[metadataKey: "worker"] = "\(index)" }
                // `next()` goes round the group's loops: one loop (thread) per engine.
                engines.append(RelayEngine(loop: group.next(), sender: socket.sender, udpPort: socket.localPort, config: config,
                                           certificate: certificate, hls: hls, logger: workerLogger))
            }
        } catch {
            try? ownGroup?.syncShutdownGracefully()
            throw error
        }
        self.engines = engines
        self.sockets = sockets
        self.hls = hls
    }

    /// Starts reading every socket and the engines' timers.
    public func start(lifecycleObserver: StreamLifecycleObserver?) async throws {
        for (engine, socket) in zip(engines, sockets) {
            engine.lifecycleObserver = lifecycleObserver
            try await socket.start(on: engine.loop, receiver: engine)
            try await engine.loop.submit { engine.startTimers() }.get()
        }
    }

    /// The UDP ports bound, one per worker.
    public var udpPorts: [Int] { sockets.map(\.localPort) }

    // MARK: placement

    /// The engine of the worker `room` lives on (worker 0 for a room never published).
    func engine(room: String) -> RelayEngine {
        engines[placement.withLock { $0[room] } ?? 0]
    }

    /// Where a new publisher of `room` goes: the room's worker, or for a new room the
    /// least-loaded worker (its media loop's load in whole percent of its core, then its
    /// sessions: idle workers differ by noise).
    func engineForPublisher(room: String) async -> RelayEngine {
        if let known = placement.withLock({ $0[room] }) { return engines[known] }
        var best = 0
        if engines.count > 1 {
            var loads: [(percent: Int, sessions: Int)] = []
            for engine in engines {
                let load = try? await engine.perform { (Int($0.plane.mediaLoad.load * 100), $0.plane.sessions.count) }
                loads.append(load ?? (.max, .max))
            }
            best = loads.indices.min { loads[$0] < loads[$1] } ?? 0
        }
        // Two first publishers at once: the first to get here places the room.
        return engines[placement.withLock { placement in
            if let known = placement[room] { return known }
            placement[room] = best
            return best
        }]
    }

    // MARK: every worker

    /// Every live stream, worker by worker.
    func snapshots() async throws -> [StreamSnapshot] {
        var all: [StreamSnapshot] = []
        for engine in engines { all += try await engine.perform { $0.snapshots() } }
        return all
    }

    /// Each worker's counters, in worker order.
    func counters() async throws -> [EngineCounters] {
        var all: [EngineCounters] = []
        for engine in engines { all.append(try await engine.perform { $0.counters() }) }
        return all
    }

    /// Ends every session on every worker (publishers first); ``close()`` stops the workers.
    func shutdown() async {
        for engine in engines { try? await engine.perform { $0.shutdown() } }
    }

    /// Closes the sockets and stops the workers' threads (after ``shutdown()``).
    func close() async {
        for socket in sockets { await socket.close() }
        try? await ownGroup?.shutdownGracefully()
    }
}
