import OnAirRTP
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// A WHIP publisher: the room's one source of media. What its viewers are fed from is its
/// ``stream``; the rest is what only the publisher's side needs (which source to forward, its
/// feedback and repair).
package final class PublisherSession: MediaSession {
    /// The layers, rates and reports viewers on this worker read.
    package let stream: StreamSource
    /// The source forwarded per kind (SDP's a=ssrc, else the first seen; see ``SourceLock``).
    package var videoSource = SourceLock()
    package var audioSource = SourceLock()
    package var videoSSRC: UInt32? { videoSource.ssrc }
    /// Simulcast: the RFC 8852 rtp-stream-id extension id, and the rank learnt per SSRC from it.
    package let ridExtensionID: UInt8?
    package var videoRanks: [UInt32: Int] = [:]
    package var audioSSRC: UInt32? { audioSource.ssrc }
    package var audioStats: RTPStreamStatistics?
    /// RFC 8285 id of the transport-wide sequence number, when transport-cc was negotiated.
    package let transportSequenceExtensionID: UInt8?
    package var transportFeedback = TransportFeedbackRecorder()
    package var lastTransportFeedback = MonoTime.zero
    /// Fraction of packets lost in the last report interval (RFC 3550 §6.4.1).
    package var lastLossFraction: Double = 0
    /// NACK/RTX repair of the forwarded video source; nil when the publisher offered no NACK.
    package var repair: UpstreamRepair?

    package init(id: String, room: String, peer: PeerSession, negotiated: NegotiatedSession, localUfrag: String, etag: String,
                 cacheSize: Int = 1024, now: MonoTime) {
        stream = StreamSource(negotiated: negotiated, cacheSize: cacheSize)
        let twcc = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
        let video = negotiated.media(of: .video)
        ridExtensionID = stream.videoRIDs.isEmpty ? nil : video?.extensionID(for: "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id")
        transportSequenceExtensionID = video.flatMap { media in
            media.codec.hasFeedback("transport-cc") ? media.extensionID(for: twcc) : nil
        }
        repair = UpstreamRepair.negotiated(for: video)
        super.init(id: id, room: room, kind: .publisher, peer: peer, negotiated: negotiated, localUfrag: localUfrag, etag: etag, now: now)
    }
}

extension PublisherSession {
    /// The primary layer (see ``videoSource``), if it has sent anything.
    package var primaryLayer: Int? { videoSSRC.flatMap(stream.videoLayer(ssrc:)) }

    /// Reception statistics of the primary layer.
    package var videoStats: RTPStreamStatistics? { primaryLayer.map { stream.videoLayers[$0].statistics } }

    /// Which source to forward (lower is better): the biggest picture once layers' sizes are
    /// known (rid order differs: libwebrtc lists q;h;f, OBS 0;1;2 from full size down), until
    /// then the offer's rid order (RFC 8853 §5.2).
    package func videoPreference(layer index: Int?, ridRank: Int) -> Int {
        guard let index, let width = stream.videoLayers[index].width, let height = stream.videoLayers[index].height else { return ridRank }
        return -(width * height)
    }
}
