import OnAirForwarding
import OnAirRTP
import OnAirSDP
import OnAirWire

/// A WHEP viewer's end: what it decoded of the video, packet by packet.
package final class TestViewer {
    /// One video packet as the viewer got it.
    package struct VideoPacket: Equatable {
        package var sequence: UInt16
        package var timestamp: UInt32
        package var ssrc: UInt32
        package var marker: Bool
        /// From the payload the publisher wrote: layer index and frame number; nil for
        /// padding and filler.
        package var layer: Int?
        package var frame: Int?
        package var keyframe: Bool
        /// A STAP-A that opens with an SPS.
        package var startsWithSPS: Bool { payload.count > 3 && payload[0] & 0x1F == 24 && payload[3] & 0x1F == 7 }
        package var payload: [UInt8]
    }

    package let peer: TestPeer
    package let sessionID: String
    package let videoPayloadType: UInt8

    /// Feedback the viewer sends by itself, as a browser does: transport-wide feedback
    /// (transport-cc; the viewer must have offered it) or REMB, each with a receiver report.
    package enum Feedback { case transportCC, remb }
    /// What ``sendFeedback(now:)`` sends (``PlaneHarness`` calls it every 100 ms).
    package var feedback: Feedback?
    private var arrivals = TransportFeedbackRecorder()
    private var packetsSeen = 0
    /// With ``feedback``: NACK (RFC 4585 §6.2.1) the video sequence numbers skipped since the
    /// last feedback, as a browser does.
    package var nacksGaps = false
    private var highestVideoSequence: UInt16?
    private var missing: [UInt16] = []

    package init(peer: TestPeer, sessionID: String, videoPayloadType: UInt8) {
        self.peer = peer
        self.sessionID = sessionID
        self.videoPayloadType = videoPayloadType
    }

    /// The video packets with media (padding-only probes left out), in arrival order.
    package var video: [VideoPacket] {
        peer.rtp.compactMap { packet -> VideoPacket? in
            guard let header = try? RTPHeader(parsing: packet), header.payloadType == videoPayloadType else { return nil }
            let payload = Array(packet[header.payloadRange])
            guard !payload.isEmpty else { return nil }
            var layer: Int?
            var frame: Int?
            var keyframe = false
            switch payload[0] & 0x1F {
            case 1 where payload.count >= 4:
                (layer, frame) = (Int(payload[1]), Int(payload[2]) << 8 | Int(payload[3]))
            case 5 where payload.count >= 4:
                (layer, frame, keyframe) = (Int(payload[1]), Int(payload[2]) << 8 | Int(payload[3]), true)
            case 24:
                // STAP-A of SPS, PPS (and an IDR: its tag follows its NAL header).
                var offset = 1
                while offset + 2 < payload.count {
                    let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                    let nal = offset + 2
                    if payload[nal] & 0x1F == 5, size >= 4 {
                        (layer, frame, keyframe) = (Int(payload[nal + 1]), Int(payload[nal + 2]) << 8 | Int(payload[nal + 3]), true)
                    }
                    offset = nal + size
                }
            default:
                break
            }
            return VideoPacket(sequence: header.sequenceNumber, timestamp: header.timestamp, ssrc: header.ssrc,
                               marker: header.marker, layer: layer, frame: frame, keyframe: keyframe, payload: payload)
        }
    }

    /// Sequence numbers and timestamps of every video packet, padding included, in arrival order.
    package var videoHeaders: [(sequence: UInt16, timestamp: UInt32)] {
        peer.rtp.compactMap { packet in
            guard let header = try? RTPHeader(parsing: packet), header.payloadType == videoPayloadType else { return nil }
            return (header.sequenceNumber, header.timestamp)
        }
    }

    /// Video packets that carry a frame of the publisher's.
    package var frames: [VideoPacket] { video.filter { $0.frame != nil } }

    /// Sends a receiver report about its video (RFC 3550 §6.4.2) up to the last packet it got:
    /// `fractionLost` in the field's fixed point (128: half), `lastSenderReport` the compact
    /// NTP time of the SR it answers (0: none), received just now.
    package func reportVideo(fractionLost: UInt8 = 0, lastSenderReport: UInt32 = 0) {
        guard let last = video.last else { return }
        peer.sendRTCP([.receiverReport(ReceiverReport(ssrc: 7, reportBlocks: [
            ReportBlock(ssrc: last.ssrc, fractionLost: fractionLost, extendedHighestSequenceNumber: UInt32(last.sequence),
                        lastSenderReport: lastSenderReport),
        ]))])
    }

    /// Records the transport-wide sequence numbers that arrived since the last call and sends
    /// the feedback (RFC 8888's predecessor, draft-holmer-rmcat-transport-wide-cc-extensions-01;
    /// or REMB at 3 Mbit/s) and a receiver report about its video.
    package func sendFeedback(now: MonoTime) {
        guard let feedback else { return }
        var mediaSSRC: UInt32?
        for packet in peer.rtp[packetsSeen...] {
            packet.withUnsafeBytes { raw in
                guard let view = RTPPacketView(raw) else { return }
                if view.payloadType == videoPayloadType {
                    mediaSSRC = view.ssrc
                    noteVideo(sequence: view.sequence)
                }
                if let range = view.extensionElement(id: ReceiveOnlyOffer.transportCCExtensionID, in: raw), range.count == 2 {
                    arrivals.record(sequence: UInt16(raw[range.lowerBound]) << 8 | UInt16(raw[range.lowerBound + 1]),
                                    arrivalMicroseconds: Int64(now.nanoseconds / 1000))
                }
            }
        }
        packetsSeen = peer.rtp.count
        guard let ssrc = mediaSSRC else { return }
        if nacksGaps && !missing.isEmpty {
            peer.sendRTCP([.genericNACK(GenericNACK(senderSSRC: 7, mediaSSRC: ssrc, lostSequenceNumbers: missing))])
            missing.removeAll()
        }
        switch feedback {
        case .transportCC:
            if let report = arrivals.makeFeedback(senderSSRC: 7, mediaSSRC: ssrc) { peer.sendRTCP([.transportWideFeedback(report)]) }
        case .remb:
            peer.sendRTCP([.remb(REMB(senderSSRC: 7, bitrate: 3_000_000, ssrcs: [ssrc]))])
        }
        reportVideo()
    }

    /// Notes the gap before `sequence`, when one opened (at most 16 numbers).
    private func noteVideo(sequence: UInt16) {
        defer { if highestVideoSequence.map({ Int16(bitPattern: sequence &- $0) > 0 }) ?? true { highestVideoSequence = sequence } }
        guard nacksGaps, let highest = highestVideoSequence else { return }
        let step = Int16(bitPattern: sequence &- highest)
        guard step > 1 && step <= 17 else { return }
        for gap in 1..<UInt16(step) { missing.append(highest &+ gap) }
    }

    /// Audio packets received.
    package var audioPackets: Int {
        peer.rtp.count { (try? RTPHeader(parsing: $0))?.payloadType != videoPayloadType }
    }
}
