import CAllocationCounter
import Logging
import OnAirCrypto
import OnAirDTLS
import OnAirForwarding
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// A ``MediaPlane`` in the test process with a manual clock: real WHIP/WHEP offers and
/// answers, real ICE, DTLS and SRTP between it and ``TestPeer``s, datagrams handed over in
/// memory. Nothing runs unless the test moves the clock (``run(for:)``).
///
/// With several workers, each is a plane of its own on port 3478 + i, as the relay's media
/// workers are; streams cross them through ``StreamFeed``s, drained after each delivery
/// round as a worker's doorbell would.
package final class PlaneHarness {
    package static let planeAddress = TransportAddress(host: "10.0.0.100", port: 3478)!
    package let sink: CapturingSink
    package let plane: MediaPlane
    package let planes: [MediaPlane]
    package let sinks: [CapturingSink]
    /// Which worker each peer's session is on.
    private var peerWorkers: [TransportAddress: Int] = [:]
    package private(set) var now = MonoTime.seconds(1_000)
    private var peers: [TransportAddress: TestPeer] = [:]
    private var lastTick = MonoTime.zero
    private var nextHost: UInt32 = 1
    package let room = "42"
    /// What the publisher does on each clock step (frames, audio, reports); set by the test.
    package var publishing: ((MonoTime) -> Void)?
    /// The network between the plane and the peers: true drops the datagram (SRTP leaves the
    /// RTP header readable, as on a real wire).
    package var drops: ((_ to: TransportAddress, _ datagram: [UInt8]) -> Bool)?
    /// The same on the way in: true drops a peer's datagram before the plane gets it.
    package var dropsInbound: ((_ from: TransportAddress, _ datagram: [UInt8]) -> Bool)?
    /// When true, every datagram the plane sends is kept here, in the order it was sent.
    package var keepsSent = false
    package private(set) var sent: [(to: TransportAddress, bytes: [UInt8])] = []
    /// When set, the heap allocations the plane makes are counted here: taking in each RTP
    /// datagram, and fanning out each read batch.
    package var allocations: AllocationCount?
    /// When set, every stream's media is tapped as for LL-HLS (``MediaTapRing``) and drained
    /// into this after each delivery round, as the relay's LL-HLS thread would.
    package var tapConsumer: (any MediaTapConsumer)? {
        didSet {
            plane.makeTap = tapConsumer == nil ? nil : { [unowned self] _, _ in
                let ring = MediaTapRing(wakeup: nil)
                self.taps.append(ring)
                return ring
            }
        }
    }
    private var taps: [MediaTapRing] = []
    /// Viewers that send feedback by themselves (``TestViewer/feedback``), and when they last did.
    private var feedbackViewers: [TestViewer] = []
    private var lastFeedback = MonoTime.zero

    package struct AllocationCount {
        package var rtpDatagrams = 0
        package var inbound = 0
        /// RTCP datagrams taken in (sender reports, viewers' feedback) and what they allocated.
        package var rtcpDatagrams = 0
        package var rtcp = 0
        package var batches = 0
        package var fanOut = 0

        package init() {}
    }

    package init(workers: Int = 1, configure: (inout MediaPlaneSettings) -> Void = { _ in }) throws {
        let certificate = try DTLSCertificate.generateECDSA(commonName: "in-process relay", validity: .seconds(3_600))
        var planes: [MediaPlane] = []
        var sinks: [CapturingSink] = []
        for worker in 0..<workers {
            var settings = MediaPlaneSettings()
            settings.candidateAddresses = ["10.0.0.100"]
            settings.udpPort = 3478 + worker
            settings.worker = worker
            configure(&settings)
            let sink = CapturingSink()
            sinks.append(sink)
            // Seeded: the planes' ids, credentials, SSRCs and first numbers are the same every run.
            planes.append(MediaPlane(sender: sink, settings: settings, certificate: certificate,
                                     logger: Logger(label: "plane", factory: { _ in SwiftLogNoOpLogHandler() }),
                                     environment: .seeded(0x0A1A + UInt64(worker))))
        }
        for plane in planes { plane.feedWakeups = Array(repeating: nil, count: workers) }
        self.planes = planes
        self.sinks = sinks
        plane = planes[0]
        sink = sinks[0]
    }

    /// Worker `worker`'s address (its own UDP port).
    package static func planeAddress(worker: Int) -> TransportAddress {
        TransportAddress(host: "10.0.0.100", port: UInt16(3478 + worker))!
    }

    // MARK: the clock

    /// Moves the clock in 5 ms steps for `duration`: the publisher's callback, the peers'
    /// and the plane's timers (the plane's every 20 ms, as the relay's loop runs it), and
    /// every datagram delivered.
    package func run(for duration: Duration, step: Duration = .milliseconds(5)) {
        let end = now + duration
        while now < end {
            now = now + step
            publishing?(now)
            for peer in peers.values { peer.poll(now: now) }
            if now - lastTick >= .milliseconds(20) {
                lastTick = now
                for plane in planes { plane.tick(now: now) }
            }
            if now - lastFeedback >= .milliseconds(100) {
                lastFeedback = now
                for viewer in feedbackViewers { viewer.sendFeedback(now: now) }
            }
            deliver()
        }
    }

    /// The heap allocations `body` makes on this thread.
    package static func countingAllocations(_ body: () -> Void) -> Int {
        allocation_counter_reset()
        allocation_counter_resume()
        body()
        allocation_counter_pause()
        return allocation_counter_total()
    }

    /// Hands every queued datagram over, both ways, until nothing is left.
    package func deliver() {
        var rounds = 0
        repeat {
            rounds += 1
            for peer in peers.values.sorted(by: { $0.address.port < $1.address.port }) where !peer.outbox.isEmpty {
                let datagrams = peer.outbox
                peer.outbox.removeAll()
                let plane = planes[peerWorkers[peer.address] ?? 0]
                for datagram in datagrams where dropsInbound?(peer.address, datagram) != true {
                    let kind = DatagramKind.classify(datagram)
                    guard allocations != nil, kind == .rtp || kind == .rtcp else {
                        plane.receive(datagram, from: peer.address, now: now)
                        continue
                    }
                    if kind == .rtcp {
                        allocations!.rtcpDatagrams += 1
                        allocations!.rtcp += Self.countingAllocations { plane.receive(datagram, from: peer.address, now: now) }
                        continue
                    }
                    allocations!.rtpDatagrams += 1
                    allocations!.inbound += Self.countingAllocations { plane.receive(datagram, from: peer.address, now: now) }
                }
            }
            // The publisher's worker first, as its read batch ends before others read its feed.
            for plane in planes {
                if allocations == nil {
                    plane.readBatchComplete(now: now)
                } else {
                    allocations!.batches += 1
                    allocations!.fanOut += Self.countingAllocations { plane.readBatchComplete(now: now) }
                }
            }
            if let tapConsumer {
                for tap in taps { _ = tap.drain(into: tapConsumer) }
            }
            for (worker, sink) in sinks.enumerated() {
                for (bytes, to) in sink.take() {
                    if keepsSent { sent.append((to, bytes)) }
                    if drops?(to, bytes) != true { peers[to]?.receive(bytes, from: Self.planeAddress(worker: worker), now: now) }
                }
            }
        } while peers.values.contains(where: { !$0.outbox.isEmpty }) && rounds < 50
    }

    // MARK: sessions

    /// A new peer address: 10.0.1.x, or fd00:0:0:1::x; `tcp`: the peer's ICE-TCP connection.
    private func newAddress(ipv6: Bool = false, tcp: Bool = false) -> TransportAddress {
        defer { nextHost += 1 }
        let transport: TransportAddress.Transport = tcp ? .tcp : .udp
        guard ipv6 else { return TransportAddress(ip: .v4(0x0A00_0100 + nextHost), port: UInt16(5_000 + nextHost), transport: transport) }
        return TransportAddress(ip: .v6(IPv6Address(high: 0xFD00_0000_0000_0001, low: UInt64(nextHost))), port: UInt16(5_000 + nextHost),
                                transport: transport)
    }

    /// Publishes over WHIP (simulcast when more than one rid) and waits until DTLS is done.
    /// `rtx`: a single-layer publisher that negotiates RTX (RFC 4588, an FID group) and
    /// answers the plane's NACKs with it.
    package func publish(rids: [String] = ["f", "h", "q"], rtx: Bool = false) throws -> TestPublisher {
        let certificate = try DTLSCertificate.generateECDSA(commonName: "publisher", validity: .seconds(3_600))
        let credentials = ClientPeerSessionParameters.generateCredentials()
        let address = newAddress()
        let candidate = ICECandidate(foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431,
                                     address: address.host, port: address.port, type: .host)
        let local = LocalTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                   fingerprint: DTLSFingerprint(algorithm: "sha-256", bytes: certificate.fingerprintSHA256),
                                   candidates: [candidate], iceLite: false)
        let audioSSRC = SecureRandom.uint32()
        let rtxSSRC = rtx && rids.count == 1 ? SecureRandom.uint32() : nil
        let ssrcs = LocalSSRCs(cname: "publisher", streamID: "publisher", audio: .init(ssrc: audioSSRC, trackID: "audio"),
                               video: .init(ssrc: SecureRandom.uint32(), rtxSSRC: rtxSSRC, trackID: "video",
                                            simulcastRIDs: rids.count > 1 ? rids : []))
        let offer = SDPNegotiator.makeOffer(local: local, ssrcs: ssrcs)
        let created = try plane.createSession(kind: .publisher, room: room, offer: offer.serialize(), now: now)
        let negotiated = try SDPNegotiator.acceptAnswer(answer: try SessionDescription.parse(created.answerSDP), offer: offer)
        let parameters = try ClientPeerSessionParameters(negotiated: negotiated, localUfrag: credentials.ufrag,
                                                         localPassword: credentials.password, certificate: certificate)
        let peer = TestPeer(address: address, session: try ClientPeerSession(parameters, now: now))
        peers[address] = peer
        try runUntil(timeout: .seconds(2)) { peer.session.canSendMedia }
        return TestPublisher(peer: peer, negotiated: negotiated, rids: rids, audioSSRC: audioSSRC,
                             videoSSRC: ssrcs.video?.ssrc, rtxSSRC: rtxSSRC)
    }

    /// Watches over WHEP and waits until DTLS is done. `worker`: the viewer's worker; on
    /// another than worker 0 (the publisher's), it joins that worker's replica of the room.
    /// `ipv6`: the viewer's address is an IPv6 one; `tcp`: the plane sees it as an ICE-TCP
    /// connection (its packets go through the sink's queue check, ``CapturingSink/roomless``).
    /// `feedback`: the viewer sends transport-cc feedback or REMB by itself every 100 ms.
    package func watch(transportCC: Bool = false, rtx: Bool = false, maximumHeight: Int? = nil, worker: Int = 0,
                       ipv6: Bool = false, tcp: Bool = false, feedback: TestViewer.Feedback? = nil) throws -> TestViewer {
        let certificate = try DTLSCertificate.generateECDSA(commonName: "viewer", validity: .seconds(3_600))
        let credentials = ClientPeerSessionParameters.generateCredentials()
        let address = newAddress(ipv6: ipv6, tcp: tcp)
        let offer = ReceiveOnlyOffer(ufrag: credentials.ufrag, password: credentials.password,
                                     fingerprint: "sha-256 " + Hex.encode(certificate.fingerprintSHA256, separator: ":", uppercase: true),
                                     candidate: (address.host, address.port), sessionID: SecureRandom.uint64() >> 2,
                                     transportCC: transportCC, rtx: rtx)
        if worker != 0 {
            guard let feed = plane.feed(room: room) else { throw Timeout(description: "room \(room) is not live on worker 0") }
            try planes[worker].attachReplica(feed, now: now)
        }
        let created = try planes[worker].createSession(kind: .viewer, room: room, offer: offer.sdp, maximumHeight: maximumHeight,
                                                       now: now)
        peerWorkers[address] = worker
        let answer = try SessionDescription.parse(created.answerSDP)
        let parameters = try ClientPeerSessionParameters(answer: answer, localUfrag: credentials.ufrag,
                                                         localPassword: credentials.password, certificate: certificate)
        let peer = TestPeer(address: address, session: try ClientPeerSession(parameters, now: now))
        peers[address] = peer
        try runUntil(timeout: .seconds(2)) { peer.session.canSendMedia }
        let types = ReceiveOnlyOffer.payloadTypes(in: answer)
        let viewer = TestViewer(peer: peer, sessionID: created.sessionID, videoPayloadType: types.video!)
        viewer.feedback = feedback
        if feedback != nil { feedbackViewers.append(viewer) }
        return viewer
    }

    package struct Timeout: Error, CustomStringConvertible {
        package var description: String
    }

    /// Runs the clock until `condition` holds; throws after `timeout`.
    package func runUntil(timeout: Duration, _ condition: () -> Bool) throws {
        let deadline = now + timeout
        while !condition() {
            guard now < deadline else { throw Timeout(description: "not reached within \(timeout)") }
            run(for: .milliseconds(5))
        }
    }

    /// The plane's view of a viewer (`/api/streams/{room}`).
    package func snapshot(of viewer: TestViewer) -> StreamSnapshot.ViewerSnapshot? {
        planes.lazy.compactMap { $0.snapshot(room: self.room, now: self.now)?.viewerSessions.first { viewer.sessionID.hasPrefix($0.sessionID) } }
            .first
    }
}
