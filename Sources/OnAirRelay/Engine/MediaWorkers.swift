import Logging
import NIOCore
import NIOPosix
import OnAirDTLS
import OnAirForwarding
import OnAirWire
import Synchronization

/// The relay's media workers (`media.workers`): one ``RelayEngine`` per worker, each on an
/// event loop (thread) of its own with its own UDP socket on `media.udp_port + i` and ICE-TCP
/// port on `media.tcp_port + i`, as mediasoup runs a worker per core. The kernel cannot steer a peer's first STUN packet to
/// the right worker behind one port, so a session is placed when its answer is built: its
/// candidate carries its worker's port, and no datagram ever crosses workers.
///
/// A room's publisher lives on one worker: the room's first publisher goes to the
/// least-loaded worker, and its later publishers follow it there. Each new viewer goes to the
/// least-loaded worker: on another than the publisher's, it joins that worker's replica of
/// the room, fed through the stream's ``StreamFeed`` (written once by the publisher's
/// worker, read in place by each other worker, which does everything per viewer itself).
public final class MediaWorkers: Sendable {
    public let engines: [RelayEngine]
    /// Each worker's UDP sockets, one per bind address (the index is their base).
    let sockets: [[UDPMediaSocket]]
    /// Each worker's ICE-TCP listeners, one per bind address (none with `media.ice_tcp` off).
    let listeners: [[TCPMediaListener]]
    /// One per worker when there are several: rings its loop when a feed it reads has records.
    private let doorbells: [PipeDoorbell]
    private let doorbellChannels = Mutex<[Channel]>([])
    public let hls: HLSService
    /// The workers' threads when this made them (nil: loops lent by the caller).
    private let ownGroup: MultiThreadedEventLoopGroup?
    /// Which worker each room lives on.
    let placement = RoomPlacement()

    /// Binds `config.media.workers` sockets (ports `udp_port + i`, or each its own ephemeral
    /// port when `udp_port` is 0) and makes an engine for each, on a loop of its own;
    /// `group`: take the loops from this group instead (tests, which start relays by the hundred).
    public init(config: RelayConfig, certificate: DTLSCertificate, hls: HLSService, logger: Logger,
                group lent: (any EventLoopGroup)? = nil) throws {
        let count = config.media.workerCount
        if config.media.iceTCP { OpenFileLimit.raiseToHardLimit() }
        ownGroup = lent == nil ? MultiThreadedEventLoopGroup(numberOfThreads: count) : nil
        let group: any EventLoopGroup = lent ?? ownGroup!
        var sockets: [[UDPMediaSocket]] = []
        var listeners: [[TCPMediaListener]] = []
        var engines: [RelayEngine] = []
        var doorbells: [PipeDoorbell] = []
        do {
            let addresses = try config.media.bind.sockets()
            for index in 0..<count {
                // One worker reads no other worker's feed: no doorbell (a pipe) for it.
                if count > 1 { doorbells.append(try PipeDoorbell()) }
                let port = config.media.udpPort == 0 ? 0 : config.media.udpPort + index
                let own = try Self.bindUDP(addresses, port: port)
                sockets.append(own)
                let tcp = try config.media.tcpPort(worker: index).map { try Self.listenTCP(addresses, port: $0) } ?? []
                listeners.append(tcp)
                var workerLogger = logger
                if count > 1 { workerLogger[metadataKey: "worker"] = "\(index)" }
                // `next()` goes round the group's loops: one loop (thread) per engine.
                let sender = BatchedDatagramSender(fds: own.map(\.fd))
                engines.append(RelayEngine(loop: group.next(), sender: sender, udpPort: own[0].localPort,
                                           tcpPort: tcp.first?.localPort, worker: index, config: config,
                                           certificate: certificate, hls: hls, logger: workerLogger))
            }
        } catch {
            for socket in sockets.joined() { socket.closeUnstarted() }
            for listener in listeners.joined() { listener.closeUnstarted() }
            try? ownGroup?.syncShutdownGracefully()
            throw error
        }
        self.engines = engines
        self.sockets = sockets
        self.listeners = listeners
        self.doorbells = doorbells
        self.hls = hls
    }

    /// Starts reading every socket and the engines' timers.
    public func start(lifecycleObserver: StreamLifecycleObserver?) async throws {
        let wakeups: [(any TapWakeup)?] = doorbells
        for (index, engine) in engines.enumerated() {
            engine.lifecycleObserver = lifecycleObserver
            for socket in sockets[index] { try await socket.start(on: engine.loop, receiver: engine) }
            for listener in listeners[index] { try await listener.start(engine: engine) }
            try await engine.perform { [placement] engine in
                engine.plane.feedWakeups = wakeups
                engine.plane.roomClosed = { room in placement.forget(room, on: index) }
                engine.startTimers()
            }
            if engines.count > 1 {
                let channel = try await doorbells[index].watch(on: engine.loop) { engine.drainFeeds() }
                doorbellChannels.withLock { $0.append(channel) }
            }
        }
    }

    /// The UDP ports bound, one per worker (the same on each of its addresses).
    public var udpPorts: [Int] { sockets.map { $0[0].localPort } }

    /// The ICE-TCP ports bound, one per worker (none with `media.ice_tcp` off).
    public var tcpPorts: [Int] { listeners.compactMap { $0.first?.localPort } }

    /// A worker's UDP sockets, one per address, all on one port: `port`, or with 0 the port the
    /// kernel gave the first (tried again from a new one when another address has it taken).
    private static func bindUDP(_ addresses: [TransportAddress], port: Int) throws -> [UDPMediaSocket] {
        try bindAll(addresses, port: port) { address, base in try UDPMediaSocket(address: address, base: base) }
    }

    /// A worker's ICE-TCP listeners, one per address, on one port as ``bindUDP(_:port:)``.
    private static func listenTCP(_ addresses: [TransportAddress], port: Int) throws -> [TCPMediaListener] {
        try bindAll(addresses, port: port) { address, base in try TCPMediaListener(address: address, base: base) }
    }

    private static func bindAll<Socket: BoundMediaSocket>(_ addresses: [TransportAddress], port: Int,
                                                          open: (TransportAddress, UInt8) throws -> Socket) throws -> [Socket] {
        var attempt = 0
        while true {
            var bound: [Socket] = []
            do {
                for (base, var address) in addresses.enumerated() {
                    address.port = UInt16(bound.first?.localPort ?? port)
                    bound.append(try open(address, UInt8(base)))
                }
                return bound
            } catch {
                for socket in bound { socket.closeUnstarted() }
                attempt += 1
                // Only an ephemeral port taken on a later address is worth another try.
                guard port == 0, !bound.isEmpty, attempt < 8 else { throw error }
            }
        }
    }

    // MARK: placement

    /// The engine of the worker `room`'s publisher lives on (worker 0 for a room never published).
    func engine(room: String) -> RelayEngine {
        engines[placement.worker(of: room) ?? 0]
    }

    /// The engine that has session `id` of `room` (a viewer may be on any worker); the room's
    /// publisher's worker when none has it (which then answers that it does not know it).
    func engine(session id: String, room: String) async -> RelayEngine {
        let home = engine(room: room)
        guard engines.count > 1 else { return home }
        for engine in [home] + engines.filter({ $0 !== home }) {
            if (try? await engine.perform({ $0.plane.sessions[id]?.room == room })) == true { return engine }
        }
        return home
    }

    /// Creates a session: a publisher on its room's worker, a viewer on the least-loaded worker
    /// (in a replica of the room when that is not the publisher's).
    func createSession(kind: SessionKind, room: String, offer: String, maximumHeight: Int?) async throws -> SessionCreated {
        if kind == .publisher {
            let worker = await workerForPublisher(room: room)
            do {
                let created = try await engines[worker].perform {
                    try $0.createSession(kind: kind, room: room, offer: offer, maximumHeight: maximumHeight)
                }
                placement.confirm(room, on: worker)
                return created
            } catch {
                // A refused offer leaves no room behind: nor an entry for it.
                _ = try? await engines[worker].perform { [placement] engine in
                    if engine.plane.rooms[room] == nil { placement.forget(room, on: worker) }
                }
                throw error
            }
        }
        let home = engine(room: room)
        let chosen = await leastLoaded()
        guard chosen !== home, let feed = try await home.perform({ $0.plane.feed(room: room) }) else {
            return try await home.perform { try $0.createSession(kind: kind, room: room, offer: offer, maximumHeight: maximumHeight) }
        }
        return try await chosen.perform { engine in
            try engine.plane.attachReplica(feed, now: MonoTime.now())
            return try engine.createSession(kind: kind, room: room, offer: offer, maximumHeight: maximumHeight)
        }
    }

    /// The worker with the lowest load: its last reading plus what the viewers admitted since
    /// will add (each costs about what a viewer costs on the worker that measured the most per
    /// viewer), in steps of 5 % of a core, then the fewest sessions. Readings are a second
    /// apart and viewers come in bursts: without the projection a burst all goes to the worker
    /// that read idle, and without the steps idle workers differ by noise. A viewer placed
    /// away from its room's publisher starts from the layer rates the publisher's worker
    /// measured (``LayerRates``), so it may go to any worker from the first.
    private func leastLoaded() async -> RelayEngine {
        guard engines.count > 1 else { return engines[0] }
        var meters: [(meter: MediaLoadMeter, sessions: Int)?] = []
        for engine in engines {
            meters.append(try? await engine.perform { ($0.plane.mediaLoad, $0.plane.sessions.count) })
        }
        let perViewer = meters.compactMap { $0?.meter.loadPerViewer }.max() ?? 0
        let keys = meters.map { entry -> (Int, Int) in
            guard let entry else { return (.max, .max) }
            let projected = entry.meter.load + Double(entry.meter.admittedSinceReading) * perViewer
            return (Int(projected * 20), entry.sessions)
        }
        return engines[keys.indices.min { keys[$0] < keys[$1] } ?? 0]
    }

    /// Where a new publisher of `room` goes: the room's worker, or for a new room the
    /// least-loaded worker.
    func workerForPublisher(room: String) async -> Int {
        if let known = placement.worker(of: room) { return known }
        let least = await leastLoaded()
        return placement.place(room, proposed: engines.firstIndex { $0 === least } ?? 0)
    }

    // MARK: every worker

    /// Every live stream, its viewers on every worker added up, by room.
    func snapshots() async throws -> [StreamSnapshot] {
        var byRoom: [String: StreamSnapshot] = [:]
        for engine in engines {
            for snapshot in try await engine.perform({ $0.snapshots() }) {
                byRoom[snapshot.room] = byRoom[snapshot.room].map { $0.merging(snapshot) } ?? snapshot
            }
        }
        return byRoom.keys.sorted().compactMap { byRoom[$0] }
    }

    /// One room, its viewers on every worker added up; nil when no worker has it.
    func snapshot(room: String) async throws -> StreamSnapshot? {
        var merged: StreamSnapshot?
        for engine in engines {
            guard let snapshot = try await engine.perform({ $0.snapshot(room: room) }) else { continue }
            merged = merged.map { $0.merging(snapshot) } ?? snapshot
        }
        return merged
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
        for listener in listeners.joined() { await listener.close() }
        for socket in sockets.joined() { await socket.close() }
        for channel in doorbellChannels.withLock({ $0 }) { try? await channel.close() }
        try? await ownGroup?.shutdownGracefully()
    }
}
