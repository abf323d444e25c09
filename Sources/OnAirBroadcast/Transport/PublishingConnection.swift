import OnAirCrypto
import OnAirMedia
import OnAirPayload
import OnAirRTP
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// One WHIP session's media path: the ``ClientPeerSession`` (ICE controlling, DTLS, SRTP) on our
/// UDP socket, an RTP sender per negotiated stream, and the RTCP both ways. NACKs are answered
/// here from the send history (RFC 4585 §6.2.1: as RTX, RFC 4588, when the answer kept it, else
/// the very packet again);
/// the rest of the feedback is collected in ``feedback`` for the engine.
///
/// Sending is allocation-free: one packet buffer, header written in place, payload written by the
/// packetizer behind it, SRTP applied in place.
final class PublishingConnection {
    let session: ClientPeerSession
    let socket: MediaSocket
    /// The best video encoding the answer accepted (the only one without simulcast).
    let video: RTPStreamSender
    /// RFC 4588 retransmission stream of ``video`` when negotiated: SSRC, payload type, and its
    /// own sequence numbers (§4: an RTX stream is numbered independently).
    private var rtx: (ssrc: UInt32, payloadType: UInt8, sequence: UInt16)?
    /// One sender per pipeline layer (``MediaPipeline/layers``, best first), nil for a layer
    /// the answer did not accept; each simulcast layer is an SSRC of its own (RFC 8853 §5.2).
    let videoLayers: [RTPStreamSender?]
    let audio: RTPStreamSender?
    private(set) var feedback = FeedbackEvents()
    /// Transport-wide sequence numbers (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2)
    /// count every packet of the session across both streams.
    private var transportSequence: UInt16 = 0
    /// Called for every packet that carries a transport-wide sequence number.
    var onTransportPacketSent: ((UInt16, Int, UInt64) -> Void)?
    private var packet = [UInt8](repeating: 0, count: 1500)
    private let packetizer = H264Packetizer(maxPayloadSize: H264Packetizer.defaultMaxPayloadSize)
    private var events: [PeerEvent] = []
    private var pacer = PacketPacer()
    private var nextReportAt: UInt64 = 0
    private(set) var closeReason: PeerCloseReason?
    private(set) var bytesSent: UInt64 = 0
    /// When the last datagram from the selected remote address arrived (consent answers, RTCP):
    /// how the engine notices a vanished endpoint long before RFC 7675's 30 s consent expiry.
    private(set) var lastHeard = MonoTime.now()

    /// - Parameter layerRIDs: the pipeline's layers, best first ([""] without simulcast).
    init(session: ClientPeerSession, socket: MediaSocket, negotiated: NegotiatedSession, ssrcs: LocalSSRCs,
         layerRIDs: [String] = [""]) throws(BroadcastError) {
        self.session = session
        self.socket = socket
        guard let videoMedia = negotiated.media(of: .video), let videoTrack = ssrcs.video else {
            throw BroadcastError(.rejected, "the WHIP answer did not accept our H.264 video")
        }
        let extensions = RTPExtensionIDs(videoMedia)
        var ssrc = videoTrack.ssrc
        videoLayers = layerRIDs.enumerated().map { index, rid in
            guard videoMedia.rids.isEmpty ? index == 0 : videoMedia.rids.contains(rid) else { return nil }
            defer { ssrc = SecureRandom.uint32() }
            return RTPStreamSender(ssrc: ssrc, payloadType: videoMedia.codec.payloadType, clockRate: 90_000,
                                   extensions: extensions, mid: videoMedia.mid, rid: videoMedia.rids.isEmpty ? "" : rid,
                                   historyPackets: 1024)
        }
        guard let best = videoLayers.compactMap({ $0 }).first else {
            throw BroadcastError(.rejected, "the WHIP answer accepted none of our simulcast layers")
        }
        video = best
        if let payloadType = videoMedia.codec.rtxPayloadType, let ssrc = videoMedia.localRTXSSRC, videoMedia.rids.isEmpty {
            rtx = (ssrc, payloadType, UInt16.random(in: 0...UInt16.max))
        }
        if let audioMedia = negotiated.media(of: .audio), let audioTrack = ssrcs.audio {
            audio = RTPStreamSender(ssrc: audioTrack.ssrc, payloadType: audioMedia.codec.payloadType, clockRate: 48_000,
                                    extensions: RTPExtensionIDs(audioMedia), mid: audioMedia.mid, historyPackets: 0)
        } else {
            audio = nil
        }
        events.reserveCapacity(16)
    }

    var isConnected: Bool { session.canSendMedia }
    var isClosed: Bool { session.state == .closed }

    // MARK: Sending media

    /// Video bitrate the pacer paces against (the encoder's current target).
    var pacingBitrate = 2_500_000
    /// When the pacer next has a packet to release (nil: nothing queued, or the path's stream
    /// holds enough: then the socket's POLLOUT wakes us).
    var nextPacedRelease: UInt64? { pathBacklogged ? nil : pacer.nextDeadline }

    /// Bytes a stream path (ICE-TCP, TURN over TCP or TLS) may hold unsent before the pacer
    /// keeps the rest: on TCP the kernel retransmits, so a full queue is delay, and a packet
    /// dropped into it would cut a frame (a keyframe cut this way is asked for again, and again:
    /// a storm that froze a 1 Mbit/s TCP uplink for 24 s). Held in the pacer instead, the wait
    /// shows in ``pacerDelay(now:)`` and the encoder drops whole frames before encoding.
    static let streamBacklogLimit = 16 * 1024

    /// Whether the media path is a stream that already holds ``streamBacklogLimit``.
    private var pathBacklogged: Bool {
        guard let destination = session.remoteAddress else { return false }
        return socket.backlog(to: destination) >= Self.streamBacklogLimit
    }

    /// How long video sent now would wait in the pacer (monotonic ns).
    func pacerDelay(now: UInt64) -> UInt64 { pacer.queueDelay(now: now, bitrate: pacingBitrate) }

    /// RFC 6184 packetization of one access unit per layer: all packets share its timestamp,
    /// the marker bit ends it (§5.1). Packets go through the pacer; the first leaves at once.
    func sendVideo(_ picture: EncodedPicture) {
        guard let destination = session.remoteAddress, session.canSendMedia else { return }
        let now = Clocks.monotonic()
        for (layer, frame) in picture.frames {
            guard let stream = videoLayers[layer] else { continue }
            let headerLength = stream.headerLength
            packetizer.packetize(frame.nalUnits, into: &packet, at: headerLength) { buffer, payloadLength, isLast in
                buffer.withUnsafeMutableBytes { raw in
                    _ = stream.writeHeader(into: raw, marker: isLast, mediaTimestamp: picture.rtpTimestamp, transportSequence: 0,
                                           absSendTime: 0)
                    let length = headerLength + payloadLength
                    if !pacer.enqueue(UnsafeRawBufferPointer(rebasing: raw[0..<length]), stream: layer,
                                      rtpTimestamp: picture.rtpTimestamp, mediaTime: picture.mediaTime, now: now) {
                        transmit(stream, buffer: raw, length: length, rtpTimestamp: picture.rtpTimestamp,
                                 mediaTime: picture.mediaTime, now: now, to: destination)
                    }
                }
            }
        }
        releasePaced(now: now)
    }

    /// Sends the queued video packets whose pacing time has come.
    func releasePaced(now: UInt64) {
        guard !pacer.isEmpty, let destination = session.remoteAddress, session.canSendMedia, !pathBacklogged else { return }
        pacer.release(now: now, bitrate: pacingBitrate) { slot, length, layer, rtpTimestamp, mediaTime in
            guard let stream = videoLayers[layer] else { return }
            transmit(stream, buffer: slot, length: length, rtpTimestamp: rtpTimestamp, mediaTime: mediaTime, now: now,
                     to: destination)
        }
    }

    /// The simulcast rids the answer accepted (empty without simulcast).
    var acceptedRIDs: [String] { videoLayers.compactMap { $0?.rid }.filter { !$0.isEmpty } }

    /// Video packets sent and retransmitted, all layers.
    var videoPacketsSent: UInt64 { videoLayers.reduce(0) { $0 + ($1?.packetsSent ?? 0) } }
    var videoRetransmitted: UInt64 { videoLayers.reduce(0) { $0 + ($1?.retransmitted ?? 0) } }

    /// The video sender of `ssrc`, any layer.
    func videoStream(ssrc: UInt32) -> RTPStreamSender? {
        videoLayers.first { $0?.ssrc == ssrc } ?? nil
    }

    /// RFC 7587: one Opus packet per RTP packet, timestamp in 48 kHz samples, marker unused
    /// (we run without DTX). Audio is small and latency-bound: never paced.
    func sendAudio(_ opus: UnsafeBufferPointer<UInt8>, rtpTimestamp: UInt32, mediaTime: UInt64) {
        guard let audio, let destination = session.remoteAddress, session.canSendMedia else { return }
        let headerLength = audio.headerLength
        let now = Clocks.monotonic()
        packet.withUnsafeMutableBytes { raw in
            UnsafeMutableRawBufferPointer(rebasing: raw[headerLength..<(headerLength + opus.count)])
                .copyMemory(from: UnsafeRawBufferPointer(opus))
            _ = audio.writeHeader(into: raw, marker: false, mediaTimestamp: rtpTimestamp, transportSequence: 0, absSendTime: 0)
            transmit(audio, buffer: raw, length: headerLength + opus.count, rtpTimestamp: rtpTimestamp, mediaTime: mediaTime,
                     now: now, to: destination)
        }
    }

    /// The moment a packet leaves: send-time extensions stamped, the clear packet kept for
    /// NACKs, SRTP applied in place (`buffer` has room for the tag), sent.
    @inline(__always)
    private func transmit(_ stream: RTPStreamSender, buffer: UnsafeMutableRawBufferPointer, length: Int, rtpTimestamp: UInt32,
                          mediaTime: UInt64, now: UInt64, to destination: TransportAddress) {
        let wide = stampSendTime(stream, buffer: buffer)
        let number = UInt16(buffer[2]) << 8 | UInt16(buffer[3])
        stream.sent(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), sequence: number,
                    payloadLength: length - stream.headerLength, mediaTimestamp: rtpTimestamp, at: mediaTime)
        protectAndSend(stream, buffer: buffer, length: length, transportSequence: wide, now: now, to: destination)
    }

    /// Stamps the next transport-wide sequence number (every packet that leaves has its own,
    /// resends too) and abs-send-time into a packet of `stream`; returns the number.
    @inline(__always)
    private func stampSendTime(_ stream: RTPStreamSender, buffer: UnsafeMutableRawBufferPointer) -> UInt16 {
        let wide = transportSequence
        if stream.extensions.transportSequence != nil { transportSequence &+= 1 }
        stream.stampSendTime(into: buffer, transportSequence: wide,
                             absSendTime: WellKnownHeaderExtensions.absSendTime(NTPTime(unixNanoseconds: Clocks.realtime())))
        return wide
    }

    /// SRTP in place (`buffer` has room for the tag), send, and tell transport-cc.
    @inline(__always)
    private func protectAndSend(_ stream: RTPStreamSender, buffer: UnsafeMutableRawBufferPointer, length: Int,
                                transportSequence wide: UInt16, now: UInt64, to destination: TransportAddress) {
        guard let protected = session.protectRTP(buffer: buffer, length: length) else { return }
        socket.send(UnsafeRawBufferPointer(rebasing: buffer[0..<protected]), to: destination)
        bytesSent &+= UInt64(protected)
        if stream.extensions.transportSequence != nil { onTransportPacketSent?(wide, protected, now) }
    }

    /// Resends may take this share of the video bitrate, a quarter second of it at once: on a
    /// congested uplink the relay asks for much of what was lost, and resending it all would
    /// only overflow the queue again (libwebrtc caps retransmissions likewise).
    static let retransmitShare = 0.3
    private var retransmitBudget = RetransmitBudget(ratePerSecond: 93_750, burst: 23_437)
    /// NACKed packets not resent because the budget was spent.
    private(set) var retransmissionsDeclined: UInt64 = 0

    /// RFC 4585 §6.2.1 Generic NACK: resend what we still have, within the budget, as RTX or
    /// as it was (same sequence number, re-encrypted: SRTP's index is the packet's own,
    /// RFC 3711 §3.3.1).
    private func retransmit(_ nack: GenericNACK) {
        guard let video = videoStream(ssrc: nack.mediaSSRC), let destination = session.remoteAddress else { return }
        let bytesPerSecond = Self.retransmitShare * Double(pacingBitrate) / 8
        retransmitBudget.ratePerSecond = bytesPerSecond
        retransmitBudget.burst = bytesPerSecond / 4
        let now = MonoTime(nanoseconds: Clocks.monotonic())
        for number in nack.lostSequenceNumbers {
            _ = video.withHistoryPacket(number) { clear in
                guard retransmitBudget.take(Double(clear.count), now: now) else {
                    retransmissionsDeclined &+= 1
                    return
                }
                packet.withUnsafeMutableBytes { raw in
                    var length = clear.count
                    if let stream = rtx, video === self.video, let header = try? RTPHeader(parsing: clear),
                       let wrapped = try? RTX.wrap(clear, header: header, rtxSSRC: stream.ssrc, rtxPayloadType: stream.payloadType,
                                                   rtxSequenceNumber: stream.sequence, into: raw) {
                        rtx?.sequence &+= 1
                        length = wrapped
                    } else {
                        // SRTP replay protection at the receiver drops an index it has seen; a
                        // packet it never got is new to it, so the same index is fine.
                        UnsafeMutableRawBufferPointer(rebasing: raw[0..<clear.count]).copyMemory(from: clear)
                    }
                    let wide = stampSendTime(video, buffer: raw)
                    protectAndSend(video, buffer: raw, length: length, transportSequence: wide, now: Clocks.monotonic(),
                                   to: destination)
                }
                video.countRetransmission()
            }
        }
    }

    // MARK: Control

    /// Reads every queued datagram and runs timers; send-events go out at once.
    func service(now: MonoTime) {
        while let (bytes, source) = socket.receive() {
            if source == session.remoteAddress { lastHeard = now }
            events.removeAll(keepingCapacity: true)
            session.receive(bytes, from: source, now: now, events: &events)
            handle(events)
        }
        if let deadline = session.nextTimeout, deadline <= now {
            events.removeAll(keepingCapacity: true)
            session.poll(now: now, events: &events)
            handle(events)
        }
    }

    private func handle(_ events: [PeerEvent]) {
        for event in events {
            switch event {
            case .send(let bytes, let address):
                socket.send(bytes, to: address)
            case .rtcp(let compound):
                receiveRTCP(compound)
            case .closed(let reason):
                closeReason = reason
            case .rtp, .selected, .validated, .connected:
                break
            }
        }
    }

    private func receiveRTCP(_ compound: [UInt8]) {
        guard let packets = try? RTCPPacket.parseCompound(compound) else { return }
        let arrival = NTPTime(unixNanoseconds: Clocks.realtime())
        for item in packets {
            switch item {
            case .pictureLossIndication(let pli) where videoStream(ssrc: pli.mediaSSRC) != nil:
                feedback.keyframeRequested = true
                feedback.keyframeRequests += 1
            case .fullIntraRequest(let fir) where fir.entries.contains { videoStream(ssrc: $0.ssrc) != nil }:
                feedback.keyframeRequested = true
                feedback.keyframeRequests += 1
            case .genericNACK(let nack):
                retransmit(nack)
            case .receiverReport(let report):
                for block in report.reportBlocks { feedback.reportBlocks.append((block, arrival)) }
            case .senderReport(let report):
                for block in report.reportBlocks { feedback.reportBlocks.append((block, arrival)) }
            case .remb(let remb):
                feedback.rembBitrates.append(Int(clamping: remb.bitrate))
            case .transportWideFeedback(let twcc):
                feedback.transportFeedback.append(twcc)
            default:
                break
            }
        }
    }

    /// What RTCP brought since the last call, nil when nothing (the common case: the media loop
    /// asks on every pass, RTCP comes a few times a second).
    func takeFeedback() -> FeedbackEvents? {
        guard feedback.hasContent else { return nil }
        let taken = feedback
        feedback = FeedbackEvents()
        return taken
    }

    /// RFC 3550 §6.4.1 sender reports with SDES CNAME (§6.5.1), about once a second (§6.2's
    /// randomised interval, 0.5-1.5 s), one compound packet per SSRC as browsers send them.
    func sendReportsIfDue(now: UInt64, cname: String) {
        guard now >= nextReportAt, session.canSendMedia, let destination = session.remoteAddress else { return }
        nextReportAt = now + UInt64.random(in: 500_000_000...1_500_000_000)
        // Both clocks read together: the loop's `now` can be an encode older than the wall
        // clock, and that skew (tens of ms) would move every layer's NTP <-> RTP mapping.
        let monotonic = Clocks.monotonic()
        let wallClock = Clocks.realtime()
        for stream in videoLayers.compactMap({ $0 }) + [audio].compactMap({ $0 }) {
            guard let report = stream.senderReport(wallClock: wallClock, now: monotonic) else { continue }
            let compound = RTCPCompoundBuilder.serialize([
                .senderReport(report), .sourceDescription(SourceDescription(ssrc: stream.ssrc, cname: cname)),
            ])
            if let protected = session.protectRTCP(compound) { socket.send(protected, to: destination) }
        }
    }

    /// close_notify (RFC 5246 §7.2.1): a relay that misses the DELETE still ends the stream at once.
    func close() {
        events.removeAll(keepingCapacity: true)
        session.close(now: MonoTime.now(), events: &events)
        for case .send(let bytes, let address) in events { socket.send(bytes, to: address) }
    }
}
