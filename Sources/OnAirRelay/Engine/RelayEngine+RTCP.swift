import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// RTCP on the engine's loop: feedback from viewers (PLI/FIR coalesced to the publisher, NACK
/// answered from the cache), sender reports translated per viewer, receiver reports to the
/// publisher.
extension RelayEngine {
    func handleRTCP(_ packet: [UInt8], from session: MediaSession, now: MonoTime) {
        guard let packets = try? RTCPPacket.parseCompound(packet), let room = rooms[session.room] else { return }
        if let publisher = session as? PublisherSession {
            for case .senderReport(let report) in packets {
                publisher.senderReports[report.ssrc] = (report, now)
                if report.ssrc == publisher.videoSSRC {
                    publisher.videoStats?.recordSenderReport(ntpTime: report.ntpTime, arrival: now)
                } else if report.ssrc == publisher.audioSSRC {
                    publisher.audioStats?.recordSenderReport(ntpTime: report.ntpTime, arrival: now)
                }
                forwardSenderReport(report, in: room, from: publisher, now: now)
                if report.ssrc == publisher.videoSSRC || report.ssrc == publisher.audioSSRC {
                    room.hls?.senderReport(isVideo: report.ssrc == publisher.videoSSRC, ntp: report.ntpTime,
                                           rtpTimestamp: report.rtpTimestamp)
                }
            }
        } else if let viewer = session as? ViewerSession {
            for item in packets {
                switch item {
                case .pictureLossIndication, .fullIntraRequest:
                    viewer.keyframeRequests += 1
                    if room.keyframeRequests.request(now: now) { sendKeyframeRequest(room: room, now: now) }
                case .genericNACK(let nack) where nack.mediaSSRC == viewer.video?.ssrc:
                    room.retransmit(viewerSequences: nack.lostSequenceNumbers, to: viewer, now: now, sender: sender)
                case .receiverReport(let report):
                    updateRoundTrip(viewer, blocks: report.reportBlocks, now: now)
                case .senderReport(let report):
                    updateRoundTrip(viewer, blocks: report.reportBlocks, now: now)
                default:
                    break
                }
            }
        }
    }

    /// One PLI (RFC 4585 §6.3.1) to the publisher's video source.
    func sendKeyframeRequest(room: Room, now: MonoTime) {
        guard let publisher = room.publisher, let ssrc = publisher.videoSSRC else { return }
        sendRTCP([.pictureLossIndication(PictureLossIndication(senderSSRC: rtcpSenderSSRC, mediaSSRC: ssrc))], to: publisher)
    }

    func sendRTCP(_ packets: [RTCPPacket], to session: MediaSession) {
        guard session.peer.canSendMedia, let destination = session.destination,
              let protected = session.peer.protectRTCP(RTCPCompoundBuilder.serialize(packets)) else { return }
        sender.enqueue(protected, to: destination)
    }

    /// RFC 3550 §7.2: a translator forwards SRs with its own SSRC mapping. Each viewer gets
    /// the publisher's NTP/RTP pair in its own timestamp space (lip sync survives) with its
    /// own packet and octet counts.
    private func forwardSenderReport(_ report: SenderReport, in room: Room, from publisher: PublisherSession, now: MonoTime) {
        let isVideo = report.ssrc == publisher.videoSSRC
        guard isVideo || report.ssrc == publisher.audioSSRC else { return }
        for viewer in room.viewers {
            guard let track = isVideo ? viewer.video : viewer.audio,
                  let timestamp = track.viewerTimestamp(forPublisherTimestamp: report.rtpTimestamp) else { continue }
            let translated = SenderReport(
                ssrc: track.ssrc, ntpTime: report.ntpTime, rtpTimestamp: timestamp,
                packetCount: isVideo ? viewer.videoPackets : viewer.audioPackets,
                octetCount: isVideo ? viewer.videoOctets : viewer.audioOctets)
            viewer.lastSenderReport[track.ssrc] = (report.ntpTime.compact, now)
            sendRTCP([.senderReport(translated), .sourceDescription(SourceDescription(ssrc: track.ssrc, cname: viewer.cname))],
                     to: viewer)
        }
    }

    /// RFC 3550 §6.4.1: RTT = arrival − LSR − DLSR, measured against when we sent that SR.
    private func updateRoundTrip(_ viewer: ViewerSession, blocks: [ReportBlock], now: MonoTime) {
        for block in blocks where block.lastSenderReport != 0 {
            guard let sent = viewer.lastSenderReport[block.ssrc], sent.compact == block.lastSenderReport else { continue }
            let delay = NTPTime.duration(compact: block.delaySinceLastSenderReport)
            let rtt = (now - sent.sentAt - delay).seconds
            if rtt >= 0 { viewer.roundTripTime = rtt }
        }
    }

    /// transport-cc feedback every ~50 ms while packets arrive (browsers expect 50-100 ms).
    func sendTransportFeedback(_ publisher: PublisherSession, now: MonoTime) {
        guard publisher.transportSequenceExtensionID != nil, now - publisher.lastTransportFeedback >= .milliseconds(50),
              let ssrc = publisher.videoSSRC ?? publisher.audioSSRC,
              let feedback = publisher.transportFeedback.makeFeedback(senderSSRC: rtcpSenderSSRC, mediaSSRC: ssrc) else { return }
        publisher.lastTransportFeedback = now
        sendRTCP([.transportWideFeedback(feedback)], to: publisher)
    }

    /// Every second: receiver reports about the publisher's streams (its encoder adapts to
    /// our loss and jitter figures) and, where negotiated, REMB with the bitrate we accept.
    func sendPeriodicReports(room: Room, now: MonoTime) {
        guard let publisher = room.publisher, publisher.peer.canSendMedia else { return }
        for index in publisher.videoLayers.indices { publisher.videoLayers[index].sample(now: now) }
        var blocks: [ReportBlock] = []
        if let block = publisher.videoStats?.makeReportBlock(now: now) { blocks.append(block) }
        if let block = publisher.audioStats?.makeReportBlock(now: now) { blocks.append(block) }
        if let fraction = blocks.first?.fractionLost { publisher.lastLossFraction = Double(fraction) / 256 }
        var packets: [RTCPPacket] = [.receiverReport(ReceiverReport(ssrc: rtcpSenderSSRC, reportBlocks: blocks))]
        if let video = publisher.negotiated.media(of: .video), video.codec.hasFeedback("goog-remb"),
           let ssrc = publisher.videoSSRC {
            packets.append(.remb(REMB(senderSSRC: rtcpSenderSSRC, bitrate: UInt64(config.media.maxPublishBitrate), ssrcs: [ssrc])))
        }
        packets.append(.sourceDescription(SourceDescription(ssrc: rtcpSenderSSRC, cname: "onair-relay")))
        sendRTCP(packets, to: publisher)
    }
}
