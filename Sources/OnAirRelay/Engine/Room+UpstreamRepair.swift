import OnAirRTP
import OnAirWire

/// The way in: RTX packets turned back into the packets they repair (RFC 4588 §4), so that
/// a repair is forwarded and cached like the original would have been.
extension Room {
    /// The original packet carried by an RTX packet of the forwarded video source, or nil
    /// (a padding-only probe, a repair of another simulcast layer, a malformed packet).
    static func recoverOriginal(of raw: UnsafeRawBufferPointer, from publisher: PublisherSession) -> [UInt8]? {
        guard publisher.repair != nil, let payloadType = publisher.videoPayloadType,
              let header = try? RTPHeader(parsing: raw) else { return nil }
        publisher.repair?.rtxPackets &+= 1
        guard header.payloadLength >= 2,
              let media = mediaSource(ofRTX: header.ssrc, in: raw, header: header, publisher: publisher),
              media == publisher.videoSSRC else { return nil }
        var original = [UInt8](repeating: 0, count: raw.count)
        let length = original.withUnsafeMutableBytes { output in
            try? RTX.unwrap(raw, header: header, originalSSRC: media, originalPayloadType: payloadType, into: output)
        }
        guard let length else { return nil }
        original.removeLast(original.count - length)
        return original
    }

    /// RFC 4588 §8.3: the FID group, else the repaired rid (RFC 8852 §3.2), else, for a
    /// publisher with one video source, that source. Learnt once per RTX SSRC.
    private static func mediaSource(ofRTX ssrc: UInt32, in raw: UnsafeRawBufferPointer, header: RTPHeader,
                                    publisher: PublisherSession) -> UInt32? {
        guard let repair = publisher.repair else { return nil }
        if let known = repair.rtxSources[ssrc] { return known }
        let media: UInt32?
        if let id = repair.repairedRIDExtensionID {
            guard let range = try? RTPHeaderExtensionWalker.find(id: id, in: raw, header: header) else { return nil }
            let rid = String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self)
            guard let rank = publisher.videoRIDs.firstIndex(of: rid) else { return nil }
            media = publisher.videoRanks.first { $0.value == rank }?.key
        } else {
            media = publisher.videoSSRC
        }
        if let media { publisher.repair?.rtxSources[ssrc] = media }
        return media
    }

    /// Loss that no NACK can repair any more: a keyframe is the only way on.
    func lossNeedsKeyframe(_ publisher: PublisherSession) {
        publisher.repair?.keyframeRequests &+= 1
        needsKeyframe = true
    }
}
