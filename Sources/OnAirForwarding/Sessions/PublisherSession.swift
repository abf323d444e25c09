import OnAirRTP
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// A WHIP publisher: the room's one source of media.
package final class PublisherSession: MediaSession {
    /// Payload types the publisher negotiated, to tell its streams apart.
    package let videoPayloadType: UInt8?
    package let audioPayloadType: UInt8?
    package let videoClockRate: UInt32
    package let audioClockRate: UInt32
    /// The source forwarded per kind (SDP's a=ssrc, else the first seen; see ``SourceLock``).
    package var videoSource = SourceLock()
    package var audioSource = SourceLock()
    package var videoSSRC: UInt32? { videoSource.ssrc }
    /// Simulcast: the rids in the offer's order of preference, the RFC 8852 rtp-stream-id
    /// extension id, and the rank learnt per SSRC from that extension.
    package let videoRIDs: [String]
    package let ridExtensionID: UInt8?
    package var videoRanks: [UInt32: Int] = [:]
    package var audioSSRC: UInt32? { audioSource.ssrc }
    package var audioStats: RTPStreamStatistics?
    /// Audio octets received, and the audio bitrate over the last second (a viewer's audio is
    /// part of what its link must carry).
    package var audioBytes: UInt64 = 0
    private var sampledAudioBytes: UInt64 = 0
    package private(set) var audioBitrate: Double = 0
    private var sampledAt: MonoTime?
    /// The publisher's latest sender report per SSRC, with when it arrived (for LSR/DLSR and
    /// for translating into viewers' sender reports).
    package var senderReports: [UInt32: (report: SenderReport, arrivedAt: MonoTime)] = [:]
    /// RFC 8285 id of the transport-wide sequence number, when transport-cc was negotiated.
    package let transportSequenceExtensionID: UInt8?
    package var transportFeedback = TransportFeedbackRecorder()
    package var lastTransportFeedback = MonoTime.zero
    /// Fraction of packets lost in the last report interval (RFC 3550 §6.4.1).
    package var lastLossFraction: Double = 0
    /// NACK/RTX repair of the forwarded video source; nil when the publisher offered no NACK.
    package var repair: UpstreamRepair?
    /// Every video encoding received (simulcast layers), in order of arrival. Each viewer
    /// gets one of them (``LayerSelector``); HLS and the publisher's figures follow the
    /// primary one (``videoSource``: the biggest picture).
    package var videoLayers: [ReceivedLayer] = []
    /// Packets kept per layer for viewers' NACKs.
    package let cacheSize: Int
    /// More SSRCs than this are not listed (a publisher cycling SSRCs must not grow the list).
    package static let maximumListedLayers = 8

    package init(id: String, room: String, peer: PeerSession, negotiated: NegotiatedSession, localUfrag: String,
         videoPayloadType: UInt8?, audioPayloadType: UInt8?, videoClockRate: UInt32, audioClockRate: UInt32,
         cacheSize: Int = 1024, now: MonoTime) {
        self.cacheSize = cacheSize
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.videoClockRate = videoClockRate
        self.audioClockRate = audioClockRate
        let twcc = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
        let video = negotiated.media(of: .video)
        videoRIDs = video?.rids ?? []
        ridExtensionID = videoRIDs.isEmpty ? nil : video?.extensionID(for: "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id")
        transportSequenceExtensionID = video.flatMap { media in
            media.codec.hasFeedback("transport-cc") ? media.extensionID(for: twcc) : nil
        }
        repair = UpstreamRepair.negotiated(for: video)
        super.init(id: id, room: room, kind: .publisher, peer: peer, negotiated: negotiated, localUfrag: localUfrag, now: now)
    }
}

extension PublisherSession {
    /// The ``videoLayers`` entry of `ssrc`, added on its first packet; nil past the listing limit.
    @inline(__always)
    package func videoLayerIndex(ssrc: UInt32, rank: Int) -> Int? {
        for index in videoLayers.indices where videoLayers[index].ssrc == ssrc { return index }
        guard videoLayers.count < Self.maximumListedLayers else { return nil }
        videoLayers.append(ReceivedLayer(ssrc: ssrc, rid: rank < videoRIDs.count ? videoRIDs[rank] : nil, cacheSize: cacheSize))
        return videoLayers.count - 1
    }

    /// Samples the layers' rates and the audio bitrate (once a second).
    package func sampleRates(now: MonoTime) {
        for index in videoLayers.indices { videoLayers[index].sample(now: now) }
        if let sampledAt, now > sampledAt { audioBitrate = Double(audioBytes - sampledAudioBytes) * 8 / (now - sampledAt).seconds }
        sampledAt = now
        sampledAudioBytes = audioBytes
    }

    /// The layer of a video SSRC, if it is one.
    package func videoLayer(ssrc: UInt32) -> Int? {
        videoLayers.firstIndex { $0.ssrc == ssrc }
    }

    /// The primary layer (see ``videoSource``), if it has sent anything.
    package var primaryLayer: Int? { videoSSRC.flatMap(videoLayer(ssrc:)) }

    /// Reception statistics of the primary layer.
    package var videoStats: RTPStreamStatistics? { primaryLayer.map { videoLayers[$0].statistics } }

    package var keyframes: UInt64 { videoLayers.reduce(0) { $0 + $1.keyframes } }

    /// Which source to forward (lower is better): the biggest picture once layers' sizes are
    /// known (rid order differs: libwebrtc lists q;h;f, OBS 0;1;2 from full size down), until
    /// then the offer's rid order (RFC 8853 §5.2).
    package func videoPreference(layer index: Int?, ridRank: Int) -> Int {
        guard let index, let width = videoLayers[index].width, let height = videoLayers[index].height else { return ridRank }
        return -(width * height)
    }
}
