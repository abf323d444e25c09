import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// RTCP on the engine's loop: feedback from viewers (PLI/FIR coalesced to the publisher, NACK
/// answered from the cache), sender reports translated per viewer, receiver reports to the
/// publisher.
extension MediaPlane {
    /// Reads the compound packet in place (``RTCPCompoundView``: nothing allocated per
    /// packet); a compound whose framing is invalid is dropped whole, a malformed packet
    /// inside a valid one is skipped.
    package func handleRTCP(_ packet: UnsafeRawBufferPointer, from session: MediaSession, now: MonoTime) {
        guard let compound = try? RTCPCompoundView(packet), let room = session.hub else { return }
        if let publisher = session as? PublisherSession {
            for item in compound {
                guard let report = item.senderReport else { continue }
                takeSenderReport(report, from: publisher, in: room, now: now)
            }
        } else if let viewer = session as? ViewerSession {
            for item in compound { takeFeedback(item, from: viewer, in: room, now: now) }
        }
    }

    /// RFC 3550 §6.4.1: a publisher's SR sets its layer's clock, goes to LL-HLS and to other
    /// workers, and is translated for every viewer.
    private func takeSenderReport(_ report: SenderReport, from publisher: PublisherSession, in room: Room, now: MonoTime) {
        publisher.stream.senderReports[report.ssrc] = (report, now)
        let layer = publisher.stream.videoLayer(ssrc: report.ssrc)
        if let layer {
            publisher.stream.videoLayers[layer].statistics.recordSenderReport(ntpTime: report.ntpTime, arrival: now)
            publisher.stream.videoLayers[layer].clock = SenderClock(ntpTime: report.ntpTime, rtpTimestamp: report.rtpTimestamp,
                                                                    clockRate: publisher.stream.videoClockRate)
            room.tap?.senderReport(layer: layer, rid: publisher.stream.videoLayers[layer].rid, isPrimary: layer == publisher.primaryLayer,
                                   ntp: report.ntpTime, rtpTimestamp: report.rtpTimestamp)
        } else if report.ssrc == publisher.audioSSRC {
            publisher.audioStats?.recordSenderReport(ntpTime: report.ntpTime, arrival: now)
            room.tap?.senderReport(layer: nil, rid: nil, isPrimary: false, ntp: report.ntpTime, rtpTimestamp: report.rtpTimestamp)
        } else {
            return
        }
        room.tap?.announce()
        room.feed?.senderReport(layer: layer ?? -1, ssrc: report.ssrc, ntp: report.ntpTime, rtpTimestamp: report.rtpTimestamp)
        room.feed?.announce()
        forwardSenderReport(report, layer: layer, in: room, now: now)
    }

    /// A viewer's feedback (RFC 4585, RFC 5104, REMB, transport-cc) and reports.
    private func takeFeedback(_ item: RTCPPacketView, from viewer: ViewerSession, in room: Room, now: MonoTime) {
        switch item.kind {
        case .pictureLoss, .fullIntraRequest:
            viewer.keyframeRequests += 1
            if viewer.awaitsTransportRoom {
                // Its TCP queue is full: the keyframe is asked for once there is room.
            } else if viewer.losesHeavily(now: now) {
                viewer.keyframeRequestHeld = true
            } else if let layer = viewer.video?.current ?? viewer.video?.target {
                room.wantKeyframe(layer: layer)
                requestKeyframes(room, now: now)
            }
        case .genericNACK:
            guard let items = item.nackItems, item.mediaSSRC == viewer.video?.ssrc else { return }
            nackedSequences.removeAll(keepingCapacity: true)
            for entry in items {
                nackedSequences.append(entry.packetID)
                for bit in 0..<16 where entry.lostBitmask & (1 << bit) != 0 { nackedSequences.append(entry.packetID &+ UInt16(bit + 1)) }
            }
            room.retransmit(viewerSequences: nackedSequences, to: viewer, now: now, sender: sender)
        case .receiverReport, .senderReport:
            guard let blocks = item.reportBlocks else { return }
            updateRoundTrip(viewer, blocks: blocks, now: now)
            updateLoss(viewer, blocks: blocks, now: now)
        case .remb:
            guard let bitrate = item.rembBitrate else { return }
            let congestion = viewer.estimator.lastCongestion
            viewer.estimator.handle(rembBitrate: Int(clamping: bitrate), sentPayloadRate: viewer.videoPayloadRate, now: now)
            if viewer.estimator.lastCongestion != congestion {
                logger.debug("remb congestion", metadata: [
                    "session": "\(viewer.id)", "remb_kbps": "\(bitrate / 1000)",
                    "sending_kbps": "\(viewer.videoPayloadRate / 1000)",
                ])
            }
        case .transportFeedback:
            guard let feedback = item.transportFeedback else { return }
            viewer.estimator.handle(feedback, now: now)
        case .other:
            break
        }
    }

    package func sendRTCP(_ packets: [RTCPPacket], to session: MediaSession) {
        guard session.peer.canSendMedia, let destination = session.destination,
              let protected = session.peer.protectRTCP(RTCPCompoundBuilder.serialize(packets)) else { return }
        sender.enqueue(protected, to: destination)
    }

    /// RFC 3550 §7.2: a translator forwards SRs with its own SSRC mapping. Each viewer gets
    /// the publisher's NTP/RTP pair of the layer it receives in its own timestamp space (lip
    /// sync survives) with its own packet and octet counts. `layer`: nil for the audio's.
    package func forwardSenderReport(_ report: SenderReport, layer: Int?, in room: Room, now: MonoTime) {
        let isVideo = layer != nil
        for viewer in room.viewers {
            let mapped: (ssrc: UInt32, timestamp: UInt32)?
            if let layer {
                mapped = viewer.video.flatMap { video in
                    video.viewerTimestamp(layer: layer, publisherTimestamp: report.rtpTimestamp).map { (video.ssrc, $0) }
                }
            } else {
                mapped = viewer.audio.flatMap { audio in
                    audio.viewerTimestamp(forPublisherTimestamp: report.rtpTimestamp).map { (audio.ssrc, $0) }
                }
            }
            guard let track = mapped else { continue }
            sendSenderReport(SenderReport(ssrc: track.ssrc, ntpTime: report.ntpTime, rtpTimestamp: track.timestamp,
                                          packetCount: isVideo ? viewer.videoPackets : viewer.audioPackets,
                                          octetCount: isVideo ? viewer.videoOctets : viewer.audioOctets),
                             to: viewer, now: now)
        }
    }

    /// A probe's padding has stopped (``ProbeController/wantsQueueMarker(now:)``): a sender
    /// report on the viewer's video now, the publisher's latest for its layer carried forward
    /// to this instant, so that its round trip shows the queue the probe left.
    package func sendQueueMarker(to viewer: ViewerSession, stream: StreamSource, now: MonoTime) {
        guard let video = viewer.video, let layer = video.current, stream.videoLayers.indices.contains(layer),
              let latest = stream.senderReports[stream.videoLayers[layer].ssrc] else { return }
        let elapsed = max(.zero, now - latest.arrivedAt)
        let ticks = UInt32(truncatingIfNeeded: Int64(elapsed.seconds * Double(stream.videoClockRate)))
        guard let timestamp = video.viewerTimestamp(layer: layer, publisherTimestamp: latest.report.rtpTimestamp &+ ticks)
        else { return }
        let ntpTime = NTPTime(unixNanoseconds: latest.report.ntpTime.unixNanoseconds &+ UInt64(elapsed.seconds * 1e9))
        sendSenderReport(SenderReport(ssrc: video.ssrc, ntpTime: ntpTime, rtpTimestamp: timestamp,
                                      packetCount: viewer.videoPackets, octetCount: viewer.videoOctets),
                         to: viewer, now: now)
        viewer.selector.probe.queueMarkerSent(at: now)
    }

    /// The SR and the viewer's CNAME, written and protected in the sender's next slot: every
    /// viewer gets one per publisher SR, so this allocates nothing (once the viewer's record
    /// of sent reports has its four entries).
    private func sendSenderReport(_ report: SenderReport, to viewer: ViewerSession, now: MonoTime) {
        viewer.sentSenderReports[report.ssrc, default: SentSenderReports()].record(compact: report.ntpTime.compact, sentAt: now)
        guard viewer.peer.canSendMedia, let destination = viewer.destination else { return }
        let slot = sender.nextSlot()
        // SRTCP adds a 4-octet index and a tag of at most 16 (RFC 3711 §3.4).
        guard let length = report.writeCompound(cname: viewer.cname, into: UnsafeMutableRawBufferPointer(rebasing: slot[..<(slot.count - 20)])),
              let protected = viewer.peer.protectRTCP(buffer: slot, length: length) else { return }
        sender.commit(length: protected, to: destination)
    }

    /// RFC 3550 §6.4.1: RTT = arrival − LSR − DLSR, measured against when we sent that SR.
    private func updateRoundTrip(_ viewer: ViewerSession, blocks: RTCPPacketView.ReportBlocks, now: MonoTime) {
        for block in blocks where block.lastSenderReport != 0 {
            guard let sentAt = viewer.sentSenderReports[block.ssrc]?.sentAt(compact: block.lastSenderReport) else { continue }
            let roundTrip = now - sentAt - NTPTime.duration(compact: block.delaySinceLastSenderReport)
            guard roundTrip >= .zero else { continue }
            viewer.roundTripTime = roundTrip.seconds
            viewer.selector.probe.observeRoundTrip(roundTrip, reportSentAt: sentAt)
        }
    }

    /// Loss the viewer reports about its video (RFC 3550 §6.4.1 fraction lost), for its
    /// estimate: only its own link's, what the publisher's uplink lost is left out
    /// (``UpstreamLossDiscount``).
    private func updateLoss(_ viewer: ViewerSession, blocks: RTCPPacketView.ReportBlocks, now: MonoTime) {
        for block in blocks where block.ssrc == viewer.video?.ssrc {
            let fraction = viewer.upstreamLoss.fraction(fractionLost: block.fractionLost,
                                                        extendedHighest: block.extendedHighestSequenceNumber,
                                                        notSent: viewer.video?.sequencesNotSent ?? 0)
            viewer.estimator.handle(fractionLost: fraction, now: now)
        }
    }

    /// transport-cc feedback every ~50 ms while packets arrive (browsers expect 50-100 ms).
    package func sendTransportFeedback(_ publisher: PublisherSession, now: MonoTime) {
        guard publisher.transportSequenceExtensionID != nil, now - publisher.lastTransportFeedback >= .milliseconds(50),
              let ssrc = publisher.videoSSRC ?? publisher.audioSSRC,
              let feedback = publisher.transportFeedback.makeFeedback(senderSSRC: rtcpSenderSSRC, mediaSSRC: ssrc) else { return }
        publisher.lastTransportFeedback = now
        sendRTCP([.transportWideFeedback(feedback)], to: publisher)
    }

    /// Every second: receiver reports about the publisher's streams (its encoder adapts to
    /// our loss and jitter figures) and, where negotiated, REMB with the bitrate we accept.
    package func sendPeriodicReports(room: Room, now: MonoTime) {
        guard let publisher = room.publisher, publisher.peer.canSendMedia else { return }
        publisher.stream.sampleRates(now: now)
        room.feed?.setLayerRates(publisher.stream.videoLayers)
        var blocks: [ReportBlock] = []
        // One block per layer (RFC 3550 §6.4.2: up to 31), the primary first.
        if let primary = publisher.primaryLayer, let block = publisher.stream.videoLayers[primary].statistics.makeReportBlock(now: now) {
            blocks.append(block)
        }
        for index in publisher.stream.videoLayers.indices where index != publisher.primaryLayer {
            if let block = publisher.stream.videoLayers[index].statistics.makeReportBlock(now: now) { blocks.append(block) }
        }
        if let block = publisher.audioStats?.makeReportBlock(now: now) { blocks.append(block) }
        if let fraction = blocks.first?.fractionLost { publisher.lastLossFraction = Double(fraction) / 256 }
        var packets: [RTCPPacket] = [.receiverReport(ReceiverReport(ssrc: rtcpSenderSSRC, reportBlocks: blocks))]
        if let video = publisher.negotiated.media(of: .video), video.codec.hasFeedback("goog-remb"),
           !publisher.stream.videoLayers.isEmpty {
            packets.append(.remb(REMB(senderSSRC: rtcpSenderSSRC, bitrate: UInt64(settings.maxPublishBitrate),
                                      ssrcs: publisher.stream.videoLayers.map(\.ssrc))))
        }
        packets.append(.sourceDescription(SourceDescription(ssrc: rtcpSenderSSRC, cname: "onair-relay")))
        sendRTCP(packets, to: publisher)
    }
}
