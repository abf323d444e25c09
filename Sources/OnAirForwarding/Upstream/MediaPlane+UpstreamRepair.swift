import OnAirRTP
import OnAirWire

extension MediaPlane {
    /// Asks the publisher again for what is missing from each video layer (RFC 4585 §6.2.1
    /// Generic NACK, one packet per layer for every due sequence number), and turns what is
    /// past repair into a keyframe request for that layer (RFC 4585 §6.3.1 PLI, coalesced
    /// with the viewers' requests).
    package func requestRepairs(_ room: Room, now: MonoTime) {
        guard let publisher = room.publisher, publisher.repair != nil else { return }
        for layer in publisher.stream.videoLayers.indices where publisher.stream.videoLayers[layer].gaps.missingCount > 0 {
            dueRepairs.removeAll(keepingCapacity: true)
            givenUpRepairs.removeAll(keepingCapacity: true)
            publisher.stream.videoLayers[layer].gaps.poll(now: now, into: &dueRepairs, givenUp: &givenUpRepairs)
            if !givenUpRepairs.isEmpty {
                room.announceLoss(givenUpRepairs, layer: layer, timestamps: &lossTimestamps, sender: sender, now: now)
                if let feed = room.feed {
                    for sequence in givenUpRepairs { feed.loss(layer: layer, sequence: sequence) }
                }
                room.lossNeedsKeyframe(publisher, layer: layer)
                requestKeyframes(room, now: now)
            }
            guard !dueRepairs.isEmpty else { continue }
            publisher.repair?.nackPackets &+= 1
            sendRTCP([.genericNACK(GenericNACK(senderSSRC: rtcpSenderSSRC, mediaSSRC: publisher.stream.videoLayers[layer].ssrc,
                                               lostSequenceNumbers: dueRepairs))], to: publisher)
        }
    }
}
