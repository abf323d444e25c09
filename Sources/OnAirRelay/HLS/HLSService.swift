import Logging
import NIOCore
import NIOPosix
import OnAirForwarding
import OnAirHLS
import OnAirWire

/// The relay's LL-HLS side, on a thread of its own: every live stream's ``HLSBranch``
/// (depacketizing, the Opus -> AAC transcode, fMP4 packaging, recording) and the requests
/// for their playlists and parts. The forwarding loops hand each stream's media over through
/// its ``MediaTapRing`` and never wait for packaging; this loop drains the rings when their
/// doorbell rings. Confined to ``loop``: HTTP handlers reach it through ``perform(_:)``.
public final class HLSService: @unchecked Sendable {
    // @unchecked: everything but `loop`, `doorbell` and `settings` is touched only on `loop`.
    public let loop: EventLoop
    let settings: HLSSettings
    let logger: Logger
    let statistics = HLSStatistics()
    /// The background queue that recordings are written on (``StreamRecorder``).
    let recordings = RecordingWriter()
    /// The thread's group when the service made it (nil: a loop lent by the caller).
    private let ownGroup: MultiThreadedEventLoopGroup?
    private let doorbell: PipeDoorbell
    private var doorbellChannel: Channel?
    /// Streams whose rings are still open, with the branch each feeds.
    private var streams: [(room: String, ring: MediaTapRing, branch: HLSBranch)] = []
    /// The branch served for a room: its live stream's once the publisher connected.
    private var live: [String: HLSBranch] = [:]
    /// Finished presentations still served (EXT-X-ENDLIST) for a while after their stream.
    private var ended: [String: (branch: HLSBranch, until: MonoTime)] = [:]
    /// Records that rings of finished streams dropped (a counter must not go down).
    private var endedStreamsDropped: UInt64 = 0
    private var timer: RepeatedTask?
    private var lastCleanup = MonoTime.zero

    /// Starts the loop's thread and its doorbell; `loop`: run on this loop instead of a
    /// thread of its own (tests, which start relays by the hundred).
    public static func start(settings: HLSSettings, logger: Logger, loop: EventLoop? = nil) async throws -> HLSService {
        let service = try HLSService(settings: settings, logger: logger, loop: loop)
        service.doorbellChannel = try await service.doorbell.watch(on: service.loop) { [service] in service.drainAll() }
        try await service.loop.submit { service.startTimer() }.get()
        return service
    }

    private init(settings: HLSSettings, logger: Logger, loop: EventLoop?) throws {
        ownGroup = loop == nil ? MultiThreadedEventLoopGroup(numberOfThreads: 1) : nil
        self.loop = loop ?? ownGroup!.next()
        doorbell = try PipeDoorbell()
        self.settings = settings
        self.logger = logger
    }

    /// Runs `body` on the service's loop and returns its result.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (HLSService) throws -> T) async throws -> T {
        try await loop.submit { try body(self) }.get()
    }

    /// Stops the loop's thread (after the engines shut down; the recordings are drained).
    public func stop() async {
        try? await perform { $0.drainAll(); $0.timer?.cancel() }
        await recordings.drain()
        try? await doorbellChannel?.close()
        try? await ownGroup?.shutdownGracefully()
    }

    // MARK: streams (any thread)

    /// A new publisher's stream: the ring its forwarding loop writes to. The branch that
    /// packages it is made on this loop, where it then lives.
    /// `rids`: the simulcast publisher's layers; empty for one rendition.
    func makeTap(room: String, streamID: String, hasAudio: Bool, rids: [String]) -> MediaTapRing {
        let ring = MediaTapRing(wakeup: doorbell)
        loop.execute { [self] in
            let branch = HLSBranch(room: room, streamID: streamID, settings: settings, hasAudio: hasAudio, rids: rids, loop: loop,
                                   logger: logger, statistics: statistics, recordings: recordings)
            streams.append((room, ring, branch))
            drainAll()
        }
        return ring
    }

    // MARK: on the loop

    /// Hands every ring's media to its branch; a stream whose publisher connected is served,
    /// one that finished is kept for ``HLSSettings/keepAfterEnd`` (if it ever started).
    func drainAll() {
        guard !streams.isEmpty else { return }
        let now = MonoTime.now()
        streams.removeAll { stream in
            let done = stream.ring.drain(into: stream.branch)
            let started = stream.ring.started
            if started && live[stream.room] !== stream.branch && !stream.branch.finished {
                live[stream.room] = stream.branch
            }
            guard done else { return false }
            stream.branch.finish()
            endedStreamsDropped &+= stream.ring.dropped
            if live[stream.room] === stream.branch { live[stream.room] = nil }
            if started { ended[stream.room] = (stream.branch, now + settings.keepAfterEnd) }
            return true
        }
    }

    private func startTimer() {
        timer = loop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { [weak self] _ in
            self?.tick()
        }
    }

    /// Every 20 ms: held requests past their deadline fail; once a second, finished
    /// presentations past their time go. Drains too, in case a wake was missed.
    private func tick() {
        drainAll()
        let deadline = NIODeadline.now()
        for branch in live.values { branch.expireWaiters(now: deadline) }
        for entry in ended.values { entry.branch.expireWaiters(now: deadline) }
        let now = MonoTime.now()
        if now - lastCleanup >= .seconds(1) {
            lastCleanup = now
            ended = ended.filter { $0.value.until > now }
        }
    }

    /// The live presentation of `room`, or the one that ended there recently. A publisher that
    /// has not connected yet is not live (as `/api/streams` says): its branch is not served, or
    /// a request for a session that never connects would be held and then answered 503.
    func branch(room: String) -> HLSBranch? {
        live[room] ?? ended[room]?.branch
    }

    /// `index.m3u8` of a room: the multivariant playlist of whatever stream is (or was) there,
    /// pointing into that stream's own directory.
    func multivariant(room: String) -> HLSReply {
        guard let branch = branch(room: room) else { return .notFound("room \(room) is not live") }
        let reply = branch.serveMultivariant(prefix: branch.streamID + "/")
        guard case .wait(let released) = reply else { return reply }
        // Released without the prefix (the stream's own index.m3u8): answer again from here.
        return .wait(released.map { _ in self.multivariant(room: room) })
    }

    func resource(room: String, stream: String, name: String, request: PlaylistRequest) -> HLSReply {
        guard let branch = branch(room: room), branch.streamID == stream else {
            return .notFound("no such stream in room \(room)")
        }
        return branch.serve(name: name, request: request)
    }

    /// LL-HLS figures for `/metrics`.
    func counters() -> HLSCounters {
        let waiting = live.values.reduce(0) { $0 + $1.waitingRequests } + ended.values.reduce(0) { $0 + $1.branch.waitingRequests }
        let dropped = streams.reduce(endedStreamsDropped) { $0 &+ $1.ring.dropped }
        return statistics.snapshot(waitingRequests: waiting, tapDropped: dropped)
    }
}
