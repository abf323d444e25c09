import OnAirRTP
import OnAirSDP
import OnAirWire

/// Loss repair on the way in: each of the publisher's video layers is watched for gaps
/// (``ReceivedLayer/gaps``), missing packets are asked for with Generic NACKs (RFC 4585 §6.2.1),
/// and what comes back, as RTX (RFC 4588) or as the very packet, is forwarded and cached like
/// any other. Only loss that could not be repaired in time costs a keyframe.
package struct UpstreamRepair {
    /// RFC 4588 §8.6 payload type of the video's RTX, when negotiated.
    package let rtxPayloadType: UInt8?
    /// RFC 8852 §3.2 repaired-rtp-stream-id extension: names the rid an RTX packet repairs
    /// when the offer has no `a=ssrc-group:FID` (Chromium's simulcast).
    package let repairedRIDExtensionID: UInt8?
    /// RTX SSRC -> the media SSRC it repairs (`a=ssrc-group:FID`, or learnt from packets).
    package var rtxSources: [UInt32: UInt32] = [:]

    /// Generic NACK packets sent to the publisher.
    package var nackPackets: UInt64 = 0
    /// Keyframe requests made because loss could not be repaired (before coalescing).
    package var keyframeRequests: UInt64 = 0
    /// RTX packets received (repairs and padding probes).
    package var rtxPackets: UInt64 = 0
    /// Padding packets sent to viewers in place of packets given up (``Room/announceLoss(_:sender:)``).
    package var lossAnnouncements: UInt64 = 0

    package init(video: NegotiatedMedia) {
        rtxPayloadType = video.codec.rtxPayloadType
        repairedRIDExtensionID = video.rids.isEmpty ? nil : video.extensionID(for: RTPHeaderExtensionURI.repairedRTPStreamID)
        if let media = video.remoteSSRC, let rtx = video.remoteRTXSSRC { rtxSources[rtx] = media }
    }

    /// Repair needs the publisher to honour NACK (RFC 4585 §4.2 `a=rtcp-fb:* nack`).
    package static func negotiated(for video: NegotiatedMedia?) -> UpstreamRepair? {
        guard let video, video.codec.hasFeedback("nack") else { return nil }
        return UpstreamRepair(video: video)
    }
}
