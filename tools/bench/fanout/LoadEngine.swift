import BenchSupport
import OnAirDTLS
import OnAirWebRTC
import OnAirWire

/// The load tool's single-threaded loop: it paces the publisher, sweeps every socket with
/// `recvmmsg`, drives the sessions' timers and turns signalling answers into sessions. One
/// engine drives one relay under test.
final class LoadEngine {
    struct Settings {
        var room: String
        var tickNanoseconds: UInt64
        var sampleEvery: Int
        /// Seconds between a viewer's RTCP receiver reports; 0 disables them.
        var receiverReportInterval: Double
        /// Viewers negotiate transport-cc and send its feedback (``Viewer/feedback``).
        var transportCC: Bool
        /// Viewers connect over ICE-TCP (the relay's passive TCP candidate, RFC 6544) only.
        var tcp = false
        var model: VideoModel
        var receiveBuffer: Int32
    }

    let settings: Settings
    let client: HTTPClient
    let pool: SignallingPool
    let certificate: DTLSCertificate
    let batch = ReceiveBatch(capacity: 64)
    var publisher: Publisher?
    var publisherLocation: String?
    var viewers: [Viewer] = []
    /// Relay-added latency samples (ns) while measuring.
    var latencies: [Int64] = []
    var measuring = false
    var events: [PeerEvent] = []
    private var nextSweep: UInt64 = 0
    private var nextTimers: UInt64 = 0

    init(settings: Settings, client: HTTPClient) throws {
        self.settings = settings
        self.client = client
        self.pool = SignallingPool(client: client, concurrency: 8)
        self.certificate = try DTLSCertificate.generateECDSA(commonName: "fanout-bench")
        events.reserveCapacity(16)
        latencies.reserveCapacity(1 << 20)
    }

    /// Runs the loop until `deadline` (monotonic ns) or until `stop` says so.
    func pump(until deadline: UInt64, stop: (() -> Bool)? = nil) {
        while true {
            let now = BenchClock.monotonic()
            if now >= deadline { return }
            if let stop, stop() { return }
            publisher?.sendDue(now: now)
            if now >= nextSweep {
                sweep()
                nextSweep = now + settings.tickNanoseconds
            }
            if now >= nextTimers {
                acceptAnswers()
                runTimers(now: now)
                nextTimers = now + 20_000_000
            }
            BenchClock.sleep(until: min(publisher?.nextDue ?? .max, nextSweep, nextTimers, deadline))
        }
    }

    /// Reads every socket until none has anything queued (before and after a window).
    func drain() {
        for _ in 0..<100 where sweep() > 0 {}
    }

    /// One pass over every socket. Returns the datagrams read.
    @discardableResult
    func sweep() -> Int {
        var total = 0
        if let publisher {
            while true {
                let count = batch.receive(from: publisher.endpoint.fd)
                for i in 0..<count { receiveForPublisher(publisher, i) }
                total += count
                if count < batch.capacity { break }
            }
        }
        for viewer in viewers where viewer.session != nil {
            while true {
                let count = batch.receive(from: viewer.endpoint.fd)
                for i in 0..<count { receive(viewer, i) }
                total += count
                if count < batch.capacity { break }
            }
            guard let stream = viewer.stream else { continue }
            while true {
                let count = batch.receive(from: stream)
                for i in 0..<count { receive(viewer, i) }
                total += count
                if count < batch.capacity { break }
            }
        }
        return total
    }

    private func receiveForPublisher(_ publisher: Publisher, _ i: Int) {
        events.removeAll(keepingCapacity: true)
        publisher.session.receive(Array(batch.bytes(i)), from: batch.source(i), now: MonoTime.now(), events: &events)
        for event in events {
            switch event {
            case .send(let bytes, let address): publisher.endpoint.send(bytes, to: address)
            case .rtcp(let packet): publisher.handleRTCP(packet)
            case .closed(let reason): publisher.closeReason = "\(reason)"
            default: break
            }
        }
    }

    /// The per-packet path: RTP is counted from its clear header, one in `sampleEvery` is
    /// decrypted for its stamp; everything else (STUN, DTLS, SRTCP) goes to the session.
    @inline(__always)
    private func receive(_ viewer: Viewer, _ i: Int) {
        let bytes = batch.bytes(i)
        guard bytes.count >= 12, let session = viewer.session else { return }
        let first = bytes[0]
        let second = bytes[1]
        guard first >= 128, first <= 191, !(192...223).contains(second) else {
            events.removeAll(keepingCapacity: true)
            session.receive(Array(bytes), from: batch.source(i), now: MonoTime.now(), events: &events)
            handle(events, of: viewer)
            return
        }
        let payloadType = second & 0x7F
        let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let isVideo = payloadType == viewer.videoPayloadType
        if settings.transportCC { viewer.recordTransportSequence(bytes, arrivalNanoseconds: BenchClock.monotonic()) }
        // A track's first packet is always decrypted: SRTP receivers learn the rollover counter
        // from the packets they see (RFC 3711 §3.3.1), so skipping past a wrap before the
        // first sample would leave ours one ROC behind for good.
        let firstOfTrack: Bool
        if isVideo {
            firstOfTrack = viewer.video.received == 0
            viewer.video.record(sequence: sequence)
        } else if payloadType == viewer.audioPayloadType {
            firstOfTrack = viewer.audio.received == 0
            viewer.audio.record(sequence: sequence)
        } else {
            return
        }
        viewer.sampleCountdown -= 1
        guard viewer.sampleCountdown <= 0 || firstOfTrack else { return }
        if viewer.sampleCountdown <= 0 { viewer.sampleCountdown = settings.sampleEvery }
        sample(viewer, session: session, i, isVideo: isVideo)
    }

    private func sample(_ viewer: Viewer, session: ClientPeerSession, _ i: Int, isVideo: Bool) {
        let arrival = batch.kernelTimestamp(i) ?? BenchClock.realtime()
        let bytes = batch.bytes(i)
        guard let length = session.unprotectRTP(buffer: bytes, length: bytes.count) else {
            viewer.decryptFailures += 1
            if session.srtpReplays > viewer.replaysSeen {
                viewer.replaysSeen = session.srtpReplays
                viewer.decryptReplays += 1
            }
            return
        }
        // RFC 3550 §5.1: 12 bytes, the CSRCs, then the extension if X is set.
        var offset = 12 + 4 * Int(bytes[0] & 0x0F)
        if bytes[0] & 0x10 != 0, length >= offset + 4 {
            offset += 4 + 4 * (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        offset += isVideo ? MediaStamp.videoOffset : MediaStamp.audioOffset
        guard let stamp = MediaStamp.read(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), at: offset) else {
            viewer.stampMissing += 1
            return
        }
        if measuring { latencies.append(Int64(bitPattern: arrival &- stamp.realtimeNanoseconds)) }
    }

    func handle(_ events: [PeerEvent], of viewer: Viewer) {
        for event in events {
            switch event {
            case .send(let bytes, let address):
                viewer.send(bytes, to: address)
            case .connected:
                viewer.phase = .connected
                viewer.nextReceiverReport = BenchClock.monotonic() + UInt64(settings.receiverReportInterval * 1e9)
            case .closed(let reason):
                viewer.phase = .failed("\(reason)")
            case .selected, .validated, .rtp, .rtcp:
                break
            }
        }
    }

    /// Session timers (checks, consent, DTLS retransmissions) and viewers' receiver reports.
    func runTimers(now: UInt64) {
        let mono = MonoTime.now()
        if let publisher {
            events.removeAll(keepingCapacity: true)
            publisher.session.poll(now: mono, events: &events)
            for event in events {
                switch event {
                case .send(let bytes, let address): publisher.endpoint.send(bytes, to: address)
                case .closed(let reason): publisher.closeReason = "\(reason)"
                default: break
                }
            }
        }
        let reportEvery = UInt64(settings.receiverReportInterval * 1e9)
        for viewer in viewers {
            guard let session = viewer.session else { continue }
            if let due = session.nextTimeout, due <= mono {
                events.removeAll(keepingCapacity: true)
                session.poll(now: mono, events: &events)
                handle(events, of: viewer)
            }
            if settings.transportCC, viewer.isConnected, viewer.nextFeedback <= now {
                viewer.nextFeedback = now + 100_000_000
                viewer.sendTransportFeedback(session: session)
            }
            if reportEvery > 0, viewer.isConnected, viewer.nextReceiverReport <= now {
                viewer.nextReceiverReport = now + reportEvery
                sendReceiverReport(viewer, session: session)
            }
        }
    }

    /// RFC 3550 §6.4.2 RR without report blocks (RFC 5506 reduced size): it keeps the relay's
    /// consent fresh like a browser's RTCP does, at a browser's rate.
    private func sendReceiverReport(_ viewer: Viewer, session: ClientPeerSession) {
        let ssrc = viewer.rtcpSSRC
        let report: [UInt8] = [0x80, 201, 0, 1, UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
        guard let destination = session.remoteAddress, let protected = session.protectRTCP(report) else { return }
        viewer.send(protected, to: destination)
    }
}
