import OnAirRTP
import OnAirWire

extension RelayEngine {
    /// Asks the publisher again for what is missing from its video (RFC 4585 §6.2.1 Generic
    /// NACK, one packet for every due sequence number), and turns what is past repair into a
    /// keyframe request (RFC 4585 §6.3.1 PLI, coalesced with the viewers' requests).
    func requestRepairs(_ room: Room, now: MonoTime) {
        guard let publisher = room.publisher, let ssrc = publisher.videoSSRC,
              let missing = publisher.repair?.generator.missingCount, missing > 0 else { return }
        dueRepairs.removeAll(keepingCapacity: true)
        givenUpRepairs.removeAll(keepingCapacity: true)
        publisher.repair?.generator.poll(now: now, into: &dueRepairs, givenUp: &givenUpRepairs)
        if !givenUpRepairs.isEmpty {
            room.announceLoss(givenUpRepairs, sender: sender)
            room.lossNeedsKeyframe(publisher)
            room.needsKeyframe = false
            if room.keyframeRequests.request(now: now) { sendKeyframeRequest(room: room, now: now) }
        }
        guard !dueRepairs.isEmpty else { return }
        publisher.repair?.nackPackets &+= 1
        sendRTCP([.genericNACK(GenericNACK(senderSSRC: rtcpSenderSSRC, mediaSSRC: ssrc, lostSequenceNumbers: dueRepairs))],
                 to: publisher)
    }
}
