import OnAirCrypto
import OnAirRTP
import OnAirSDP
import OnAirWire

/// A simulcast H.264 + Opus publisher made of real RTP: per layer its own SSRC, random
/// sequence and timestamp bases, the RFC 8852 rid extension, real SPS (so the plane learns
/// each layer's size), one packet per frame, and sender reports tying each layer's clock to
/// one NTP time line.
package final class TestPublisher {
    package struct Layer {
        package let rid: String
        package var ssrc = SecureRandom.uint32()
        package let timestampBase = SecureRandom.uint32()
        package var sequence = UInt16(truncatingIfNeeded: SecureRandom.uint32())
        package let sps: [UInt8]
        package var packets: UInt32 = 0
    }

    package let peer: TestPeer
    package let videoPayloadType: UInt8
    package let audioPayloadType: UInt8
    package let ridExtensionID: UInt8
    package let audioSSRC: UInt32
    package private(set) var layers: [Layer]
    private var audioSequence: UInt16 = 0
    /// Frames sent per layer (the frame number written in each payload).
    package private(set) var frame = 0
    /// When each frame was sent, by frame number.
    package private(set) var frameTimes: [MonoTime] = []
    /// Sends a keyframe's SPS and PPS in a STAP-A of their own before the IDR packet (as
    /// Chromium and aiortc do), instead of one STAP-A of all three.
    package var separatePreamble = false
    /// Sends SPS and PPS before every picture that is not IDR too (as x264 with intra
    /// refresh does): a preamble that leads no keyframe.
    package var parameterSetsBeforeEveryPicture = false
    /// RFC 4588 RTX of the first layer, when negotiated: its payload type and SSRC.
    package let rtx: (payloadType: UInt8, ssrc: UInt32)?
    private var rtxSequence: UInt16 = 0
    /// The first layer's recent packets (payload, timestamp, marker) for RTX answers.
    private var recent: [UInt16: (payload: [UInt8], timestamp: UInt32, marker: Bool)] = [:]
    /// RTX packets sent in answer to NACKs.
    package private(set) var retransmissions = 0

    /// x264 baseline SPS of 1280x720, 640x360 and 320x180 pictures (what `broadcast --simulcast` sends).
    package static let sps720: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0xD9, 0x00, 0x50, 0x05, 0xBB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10,
                                  0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x24, 0x80]
    package static let sps360: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xD9, 0x00, 0xA0, 0x2F, 0xF9, 0x70, 0x11, 0x00, 0x00, 0x03, 0x00, 0x01,
                                  0x00, 0x00, 0x03, 0x00, 0x3C, 0x0F, 0x16, 0x2E, 0x48]
    package static let sps180: [UInt8] = [0x67, 0x42, 0xC0, 0x0D, 0xD9, 0x01, 0x41, 0x9F, 0x9F, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10,
                                  0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x42, 0xA4, 0x80]
    package static let pps: [UInt8] = [0x68, 0xCB, 0x83, 0xCB, 0x20]

    package init(peer: TestPeer, negotiated: NegotiatedSession, rids: [String], audioSSRC: UInt32, videoSSRC: UInt32? = nil,
                 rtxSSRC: UInt32? = nil) {
        self.peer = peer
        let video = negotiated.media(of: .video)!
        videoPayloadType = video.codec.payloadType
        audioPayloadType = negotiated.media(of: .audio)!.codec.payloadType
        ridExtensionID = video.extensions.first { $0.value == RTPHeaderExtensionURI.rtpStreamID }?.key ?? 0
        self.audioSSRC = audioSSRC
        let pictures = [Self.sps720, Self.sps360, Self.sps180]
        layers = rids.enumerated().map { Layer(rid: $1, sps: pictures[min($0, 2)]) }
        // One layer: the SSRC the offer announced (its FID group pairs it with the RTX SSRC).
        if rids.count == 1, let videoSSRC { layers[0].ssrc = videoSSRC }
        if let payloadType = video.codec.rtxPayloadType, let rtxSSRC { rtx = (payloadType, rtxSSRC) } else { rtx = nil }
    }

    /// Answers a Generic NACK (RFC 4585 §6.2.1) of the first layer with RTX packets (RFC 4588
    /// §4: the original sequence number, then the original payload), from the recent packets.
    package func answer(_ nack: GenericNACK) {
        guard let rtx, nack.mediaSSRC == layers[0].ssrc else { return }
        for sequence in nack.lostSequenceNumbers {
            guard let original = recent[sequence] else { continue }
            let builder = RTPPacketBuilder(payloadType: rtx.payloadType, sequenceNumber: rtxSequence, timestamp: original.timestamp,
                                           ssrc: rtx.ssrc, marker: original.marker)
            rtxSequence &+= 1
            retransmissions += 1
            peer.sendRTP(builder.build(payload: [UInt8(sequence >> 8), UInt8(sequence & 0xFF)] + original.payload))
        }
    }

    /// The layer index of a video SSRC.
    package func layer(ofSSRC ssrc: UInt32) -> Int? { layers.firstIndex { $0.ssrc == ssrc } }

    /// The RTP timestamp of layer `index` at `now` (90 kHz from its base).
    package func timestamp(layer index: Int, at now: MonoTime) -> UInt32 {
        layers[index].timestampBase &+ UInt32(truncatingIfNeeded: now.nanoseconds / 1_000_000 * 90)
    }

    /// One frame on every layer (`keyframes`: the layers that send an IDR with SPS and PPS).
    /// Payload: NAL header, layer, frame number (16 bits), then filler bytes.
    package func sendFrame(at now: MonoTime, keyframes: Set<Int> = [], sizes: [Int] = [1_100, 500, 120]) {
        frameTimes.append(now)
        for index in layers.indices {
            let size = sizes[min(index, sizes.count - 1)]
            let tag: [UInt8] = [UInt8(index), UInt8(truncatingIfNeeded: frame >> 8), UInt8(truncatingIfNeeded: frame)]
            let body = tag + [UInt8](repeating: 0xAB, count: size)
            let payload: [UInt8]
            let parameterSets = [0x18] + Self.sized(layers[index].sps) + Self.sized(Self.pps)  // RFC 6184 §5.7.1 STAP-A
            if keyframes.contains(index) && !separatePreamble {
                payload = parameterSets + Self.sized([0x65] + body)
            } else {
                if keyframes.contains(index) || parameterSetsBeforeEveryPicture {
                    send(parameterSets, layer: index, at: now, marker: false)
                }
                payload = (keyframes.contains(index) ? [0x65] : [0x41]) + body
            }
            send(payload, layer: index, at: now)
        }
        frame += 1
    }

    private static func sized(_ nal: [UInt8]) -> [UInt8] { [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }

    private func send(_ payload: [UInt8], layer index: Int, at now: MonoTime, marker: Bool = true) {
        // RFC 8852 rid, when negotiated (simulcast offers only).
        let rid = ridExtensionID == 0 ? nil
            : try! RTPHeaderExtensionBlock(elements: [RTPHeaderExtensionElement(id: ridExtensionID, data: Array(layers[index].rid.utf8))])
        let builder = RTPPacketBuilder(payloadType: videoPayloadType, sequenceNumber: layers[index].sequence,
                                       timestamp: timestamp(layer: index, at: now), ssrc: layers[index].ssrc, marker: marker,
                                       extensionBlock: rid)
        if rtx != nil && index == 0 {
            recent[layers[index].sequence] = (payload, timestamp(layer: index, at: now), marker)
            recent[layers[index].sequence &- 512] = nil
        }
        layers[index].sequence &+= 1
        layers[index].packets += 1
        peer.sendRTP(builder.build(payload: payload))
    }

    /// 20 ms of Opus (any bytes: the plane forwards it as it is).
    package func sendAudio(at now: MonoTime) {
        let builder = RTPPacketBuilder(payloadType: audioPayloadType, sequenceNumber: audioSequence,
                                       timestamp: UInt32(truncatingIfNeeded: now.nanoseconds / 1_000_000 * 48), ssrc: audioSSRC,
                                       marker: false)
        audioSequence &+= 1
        peer.sendRTP(builder.build(payload: [0xFC] + [UInt8](repeating: 0x11, count: 60)))
    }

    /// RFC 3550 §6.4.1 sender reports of every layer at `now`: one NTP time line for all.
    package func sendReports(at now: MonoTime) {
        let ntp = NTPTime(unixNanoseconds: 1_700_000_000_000_000_000 + now.nanoseconds)
        peer.sendRTCP(layers.indices.map { index in
            .senderReport(SenderReport(ssrc: layers[index].ssrc, ntpTime: ntp, rtpTimestamp: timestamp(layer: index, at: now),
                                       packetCount: layers[index].packets, octetCount: layers[index].packets * 200))
        })
    }
}
