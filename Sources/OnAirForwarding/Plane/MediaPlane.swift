import Foundation
import Logging
import OnAirCrypto
import OnAirDTLS
import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// The media plane, sans I/O: every room and session, the datagram router, the per-viewer
/// forwarding and its timers. Datagrams come in through ``receive(_:from:now:)``, go out
/// through a ``DatagramSink``; time is whatever `now` the caller passes (the relay's event
/// loop in production, a manual clock in tests). Confined to one thread.
package final class MediaPlane {
    package let sender: any DatagramSink
    package let settings: MediaPlaneSettings
    package let certificate: DTLSCertificate
    package let logger: Logger

    package var rooms: [String: Room] = [:]
    package var sessions: [String: MediaSession] = [:]
    package var sessionsByUfrag: [String: MediaSession] = [:]
    package var sessionsByAddress: [TransportAddress: MediaSession] = [:]
    package var unroutable: UInt64 = 0
    /// Run-padded packets of rooms that are gone (a counter must not go down).
    package var endedRoomsPaddedPackets: UInt64 = 0
    /// SRTP/SRTCP failures of sessions that are gone (a counter must not go down).
    package var endedSessionsSRTPFailures: UInt64 = 0
    /// Our SSRC as an RTCP sender towards publishers (RR, PLI, REMB).
    package let rtcpSenderSSRC: UInt32
    /// The time of day and the random source (``PlaneEnvironment``).
    package let environment: PlaneEnvironment
    /// Told about streams starting and ending (webhooks); nil in tests that do not care.
    package var lifecycleObserver: StreamLifecycleObserver?
    /// Each worker's doorbell, in worker order, for the feeds of streams published here.
    package var feedWakeups: [(any TapWakeup)?] = []
    /// Called with a room's id when it closes here (its publisher and last viewer gone).
    package var roomClosed: ((String) -> Void)?
    /// Rooms here whose stream is published on another worker (``Room/upstream``).
    package var replicas: [Room] = []
    /// Feed records dropped by streams that ended here (a counter must not go down).
    package var endedFeedsDropped: UInt64 = 0
    /// Makes the tap (LL-HLS) of a new publisher's stream; nil: no tap.
    package var makeTap: ((_ room: String, _ publisher: PublisherSession) -> MediaTapRing?)?
    var events: [PeerEvent] = []
    /// Sequence numbers to NACK upstream, and those given up, reused (``requestRepairs(_:now:)``).
    package var dueRepairs: [UInt16] = []
    package var givenUpRepairs: [UInt16] = []
    package var lossTimestamps: [UInt32] = []
    /// Scratch for viewers' unconfirmed resends (``Room/resendUnconfirmed``).
    package var overdueResends: [UInt16] = []
    /// The sequence numbers of the viewer NACK being answered, reused.
    package var nackedSequences: [UInt16] = []
    /// The layers of the room being decided (``selectLayers(_:now:)``), reused.
    package var layerCandidates: [LayerCandidate] = []
    var ticks: UInt64 = 0
    /// Rooms with publisher packets waiting for the end of the read batch (``Room/fanOutPending``).
    private var roomsAwaitingFanOut: [Room] = []
    var lastReportTick = MonoTime.zero
    /// Decrypted publisher packets until the end of the read batch.
    package let inbound = InboundPacketSlab()
    /// Datagrams too large for a slot (not media of ours), dropped.
    package var oversizeDatagrams: UInt64 = 0
    /// How busy the thread forwarding is; new viewers get 503 above `maxMediaLoad`.
    package var mediaLoad = MediaLoadMeter()

    package init(sender: any DatagramSink, settings: MediaPlaneSettings, certificate: DTLSCertificate, logger: Logger,
                 environment: PlaneEnvironment = .system) {
        self.environment = environment
        rtcpSenderSSRC = environment.uint32()
        self.sender = sender
        self.settings = settings
        self.certificate = certificate
        self.logger = logger
        events.reserveCapacity(16)
        roomsAwaitingFanOut.reserveCapacity(16)
        dueRepairs.reserveCapacity(512)
        nackedSequences.reserveCapacity(512)
        givenUpRepairs.reserveCapacity(512)
        lossTimestamps.reserveCapacity(512)
    }

    // MARK: datagrams

    /// One datagram from `address`, demultiplexed by RFC 7983. SRTP and SRTCP are decrypted in
    /// a slot of ``inbound`` (the per-packet path allocates nothing); STUN and DTLS go to the
    /// session's peer as arrays.
    package func receive(_ datagram: UnsafeRawBufferPointer, from address: TransportAddress, now: MonoTime) {
        let kind = DatagramKind.classify(datagram)
        guard kind != .unknown else { unroutable += 1; return }
        guard kind == .rtp || kind == .rtcp else {
            receiveControl(Array(datagram), kind: kind, from: address, now: now)
            return
        }
        guard let session = sessionsByAddress[address], !session.ended else { unroutable += 1; return }
        guard datagram.count <= InboundPacketSlab.slotSize else { oversizeDatagrams &+= 1; return }
        // A packet and the original an RTX packet may carry: two slots.
        if inbound.freeSlots < 2 { fanOutPending(now: now) }
        guard let slot = inbound.nextSlot() else { return }
        UnsafeMutableRawBufferPointer(rebasing: slot[..<datagram.count]).copyMemory(from: datagram)
        if kind == .rtcp {
            guard let length = session.peer.unprotectRTCP(slot, length: datagram.count, from: address, now: now) else { return }
            handleRTCP(UnsafeRawBufferPointer(rebasing: slot[..<length]), from: session, now: now)
        } else {
            // The header is read once, here, for SRTP and for every stage after it.
            guard let (length, view) = session.peer.unprotectRTP(slot, length: datagram.count, from: address, now: now) else { return }
            receiveRTP(UnsafeRawBufferPointer(rebasing: slot[..<length]), view: view, from: session, now: now)
        }
    }

    /// STUN and DTLS: to the session's peer. A first connectivity check from a new address
    /// finds its session by the ufrag in its USERNAME (RFC 8445 §7.2.2).
    private func receiveControl(_ bytes: [UInt8], kind: DatagramKind, from address: TransportAddress, now: MonoTime) {
        var session = sessionsByAddress[address]
        if session == nil, kind == .stun, let ufrag = PeerSession.localUfrag(ofCheck: bytes) {
            session = sessionsByUfrag[ufrag]
        }
        guard let session, !session.ended else { unroutable += 1; return }
        events.removeAll(keepingCapacity: true)
        session.peer.receive(bytes, from: address, now: now, events: &events)
        handle(events: events, of: session, now: now)
    }

    /// A TCP connection closed (the peer, the network, or its queue limit): a session whose
    /// media went over it ends, as when consent expires (RFC 7675 §5.1), since an ICE-lite
    /// agent cannot open it again (RFC 6544 §7.1: the peer chose it, and chooses anew only
    /// with an ICE restart).
    package func transportClosed(_ address: TransportAddress, now: MonoTime) {
        guard let session = sessionsByAddress[address], session.destination?.address == address else { return }
        session.streamTransports.removeAll { $0 == address }
        end(session, reason: .publisherTimeout, now: now)
    }

    /// One datagram held in an array (tests, tools).
    package func receive(_ datagram: [UInt8], from address: TransportAddress, now: MonoTime) {
        datagram.withUnsafeBytes { receive($0, from: address, now: now) }
    }

    /// A decrypted publisher packet (in the slot ``InboundPacketSlab/nextSlot()`` gave): into
    /// its room's fan-out, keeping the slot until the end of the read batch.
    private func receiveRTP(_ packet: UnsafeRawBufferPointer, view: RTPPacketView, from session: MediaSession, now: MonoTime) {
        guard let publisher = session as? PublisherSession, let room = publisher.hub, room.publisher === publisher else { return }
        room.forward(packet, view: view, from: publisher, now: now, sender: sender, slab: inbound)
        if !room.awaitingFanOut && !room.pendingPackets.isEmpty {
            room.awaitingFanOut = true
            roomsAwaitingFanOut.append(room)
        }
        if room.needsKeyframe { requestKeyframes(room, now: now) }
    }

    /// The end of a read batch: the publishers' packets go to the viewers, and out.
    package func readBatchComplete(now: MonoTime) {
        fanOutPending(now: now)
        drainFeeds(now: now)
        sender.flush()
    }

    /// Sends every room's pending publisher packets to its viewers. Runs at the end of each
    /// read batch, and before anything that changes who is in a room.
    package func fanOutPending(now: MonoTime) {
        guard !roomsAwaitingFanOut.isEmpty else { inbound.reset(); return }
        for room in roomsAwaitingFanOut {
            requestRepairs(room, now: now)
            room.awaitingFanOut = false
            room.fanOutPending(sender: sender, now: now)
            room.tap?.announce()
            room.feed?.announce()
        }
        roomsAwaitingFanOut.removeAll(keepingCapacity: true)
        inbound.reset()
    }

    package func handle(events: [PeerEvent], of session: MediaSession, now: MonoTime) {
        for event in events {
            switch event {
            case .send(let bytes, let address):
                sender.enqueue(bytes, to: session.destination?.address == address ? session.destination! : DatagramDestination(address))
            case .selected(let address):
                if let old = session.destination?.address, old != address { sessionsByAddress[old] = nil }
                sessionsByAddress[address] = session
                session.destination = DatagramDestination(address)
            case .validated(let address):
                guard address.transport == .tcp, !session.streamTransports.contains(address) else { break }
                session.streamTransports.append(address)
                sender.transportAuthenticated(address)
            case .connected:
                session.connectedAt = now
                connected(session, now: now)
            case .rtp, .rtcp:
                break  // media and RTCP come in through receive(_:from:now:), decrypted in place
            case .closed(let reason):
                end(session, reason: Self.endReason(reason), now: now)
            }
        }
    }
}
