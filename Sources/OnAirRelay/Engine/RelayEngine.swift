import Foundation
import Logging
import NIOCore
import OnAirDTLS
import OnAirForwarding
import OnAirWire

/// The media plane on its event loop: the UDP socket's datagrams, its ICE-TCP connections'
/// packets and a 20 ms timer drive the sans-I/O ``MediaPlane``. A stream's LL-HLS is packaged and served on the ``HLSService``'s
/// thread, fed through a ring. Confined to one event loop (like a mediasoup worker); HTTP
/// handlers reach it through ``perform(_:)``.
public final class RelayEngine: DatagramReceiver, @unchecked Sendable {
    // @unchecked: every property is touched only on `loop`; `perform` hops there first.
    public let loop: EventLoop
    /// Where the plane's packets go: the UDP socket, or a TCP connection's queue.
    let transports: MediaTransports
    let config: RelayConfig
    let logger: Logger
    let plane: MediaPlane
    private var timer: RepeatedTask?

    public init(loop: EventLoop, sender: BatchedDatagramSender, udpPort: Int, tcpPort: Int? = nil, worker: Int = 0,
                config: RelayConfig, certificate: DTLSCertificate, hls: HLSService, logger: Logger) {
        self.loop = loop
        transports = MediaTransports(udp: sender, limits: config.tcpMediaLimits)
        self.config = config
        self.logger = logger
        plane = MediaPlane(sender: transports, settings: config.mediaPlaneSettings(udpPort: udpPort, tcpPort: tcpPort, worker: worker),
                           certificate: certificate, logger: logger)
        plane.makeTap = { [hls] room, publisher in Self.makeTap(room: room, publisher: publisher, hls: hls) }
    }

    /// Told about streams starting and ending (webhooks); nil in tests that do not care.
    public var lifecycleObserver: StreamLifecycleObserver? {
        get { plane.lifecycleObserver }
        set { plane.lifecycleObserver = newValue }
    }

    /// Runs `body` on the engine's loop and returns its result.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (RelayEngine) throws -> T) async throws -> T {
        try await loop.submit { try body(self) }.get()
    }

    func startTimers() {
        timer = loop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { [weak self] _ in
            self?.tick(now: MonoTime.now())
        }
    }

    // MARK: datagrams

    public func receive(_ datagram: ByteBuffer, from address: TransportAddress, now: MonoTime) {
        datagram.withUnsafeReadableBytes { plane.receive($0, from: address, now: now) }
    }

    /// One packet from an ICE-TCP connection (unframed, RFC 4571).
    func receive(frame: UnsafeRawBufferPointer, from address: TransportAddress, now: MonoTime) {
        plane.receive(frame, from: address, now: now)
    }

    /// An ICE-TCP connection closed: forgotten, and a session whose media went over it ends.
    func connectionClosed(_ connection: TCPMediaConnection) {
        transports.closed(connection)
        plane.transportClosed(connection.address, now: MonoTime.now())
        transports.flush()
    }

    public func readBatchComplete() {
        let start = MonoTime.now()
        plane.readBatchComplete(now: start)
        plane.mediaLoad.noteFanOut(from: start, to: MonoTime.now())
    }

    /// Streams of other workers' publishers have records waiting (this worker's doorbell rang).
    func drainFeeds() {
        let start = MonoTime.now()
        plane.drainFeeds(now: start)
        transports.flush()
        plane.mediaLoad.noteFanOut(from: start, to: MonoTime.now())
    }

    // MARK: timers

    func tick(now: MonoTime) {
        plane.mediaLoad.sample(cpuNanoseconds: MediaLoadMeter.threadCPUNanoseconds(), viewers: plane.viewerCount, at: now)
        plane.tick(now: now)
        transports.tick(now: now)
    }

    // MARK: signalling and control (HTTP handlers, through perform)

    func createSession(kind: SessionKind, room: String, offer: String, maximumHeight: Int? = nil) throws(EngineError) -> SessionCreated {
        try plane.createSession(kind: kind, room: room, offer: offer, maximumHeight: maximumHeight, now: MonoTime.now())
    }

    func patchSession(id: String, room: String, kind: SessionKind, ifMatch: String?, fragment: String) throws(EngineError) -> SessionPatched {
        try plane.patchSession(id: id, room: room, kind: kind, ifMatch: ifMatch, fragment: fragment)
    }

    func deleteSession(id: String, room: String, kind: SessionKind) throws(EngineError) {
        try plane.deleteSession(id: id, room: room, kind: kind, now: MonoTime.now())
    }

    func setLayerCap(id: String, room: String, maximumHeight: Int?) throws(EngineError) {
        try plane.setLayerCap(id: id, room: room, maximumHeight: maximumHeight, now: MonoTime.now())
    }

    /// Ends the live stream of `room` on purpose; false when nothing is live there.
    func kick(room: String) -> Bool { plane.kick(room: room, now: MonoTime.now()) }

    func snapshots() -> [StreamSnapshot] { plane.snapshots(now: MonoTime.now()) }

    func snapshot(room: String) -> StreamSnapshot? { plane.snapshot(room: room, now: MonoTime.now()) }

    func shutdown() {
        plane.shutdown(now: MonoTime.now())
        timer?.cancel()
        transports.flush()
        transports.closeAll()
    }

    func counters() -> EngineCounters {
        let udp = transports.udp
        return EngineCounters(sessions: plane.sessions.count, datagramsSent: udp.sent, datagramsDropped: udp.dropped,
                       sendMessages: udp.messagesSent, segmentationFallbacks: udp.segmentationFallbacks,
                       paddedPackets: plane.paddedPackets, mediaLoad: plane.mediaLoad.load, fanOutLoad: plane.mediaLoad.fanOutLoad,
                       unroutable: plane.unroutable, srtpFailures: plane.srtpFailures, feedDropped: plane.feedDropped,
                       replicaViewers: plane.replicas.reduce(0) { $0 + $1.viewers.count },
                       tcpConnections: transports.connections.count, tcpAccepted: transports.tcpAccepted,
                       tcpRefused: transports.tcpRefused, tcpTimedOut: transports.tcpTimedOut, tcpOverLimit: transports.tcpOverLimit,
                       tcpDropped: transports.tcpDropped)
    }

    // MARK: LL-HLS

    /// The tap of a new publisher's stream into LL-HLS (H.264 only: what fMP4 here carries).
    private static func makeTap(room: String, publisher: PublisherSession, hls: HLSService) -> MediaTapRing? {
        guard hls.settings.enabled, publisher.negotiated.media(of: .video)?.codec.isH264 == true else { return nil }
        return hls.makeTap(room: room, streamID: String(publisher.id.prefix(12)),
                           hasAudio: publisher.negotiated.media(of: .audio)?.codec.isOpus == true, rids: publisher.stream.videoRIDs)
    }
}
