import OnAirRTP
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// A WHEP viewer: receives the room's media with its own SSRCs, sequence numbers and
/// timestamps, in the payload types it negotiated; its video from the layer its link carries
/// (``LayerSelector`` on its ``ViewerBandwidthEstimator``).
package final class ViewerSession: MediaSession {
    package var video: LayeredVideoRewriter?
    package var audio: TrackRewriter?
    package var estimator: ViewerBandwidthEstimator
    package var selector: LayerSelector
    package var upstreamLoss = UpstreamLossDiscount()
    /// abs-send-time / transport-wide sequence numbers written on every packet sent.
    package var extensions: ViewerHeaderExtensions
    /// RFC 4588 RTX stream, when negotiated: carries padding-only probe packets with their own
    /// sequence numbers, so probing never disturbs the media's numbering or NACKs.
    package let rtx: (ssrc: UInt32, payloadType: UInt8)?
    package var rtxSequence: UInt16
    package var retransmitBudget = RetransmitBudget()
    /// The video sent, by this viewer's sequence numbers: for NACKs (``RetransmissionHistory``).
    package var history = RetransmissionHistory()
    package var retransmissions: UInt64 = 0
    /// NACKed packets answered with padding instead (gone from the cache, or over budget).
    package var retransmissionsGivenUp: UInt64 = 0
    package var nacksReceived: UInt64 = 0
    package var keyframeRequests: UInt64 = 0
    /// A keyframe request of this viewer held while its link loses heavily
    /// (``MediaPlane/selectLayer``): a keyframe cannot get through such a link whole, and
    /// each one the publisher makes costs every viewer of the stream.
    package var keyframeRequestHeld = false
    package var packetsDropped: UInt64 = 0
    /// Over TCP: video stopped at a frame's start because the connection's queue was full, and
    /// waits for room, then for the keyframe asked for then (the frames after a dropped one
    /// do not decode). ``transportRestarts`` counts the stops.
    package var awaitsTransportRoom = false
    package var transportRestarts: UInt64 = 0
    package var paddingPackets: UInt64 = 0
    package var paddingBytes: UInt64 = 0
    /// Time spent with video paused (``PauseGate``), by why.
    package var pausedTime = PausedVideoTime()
    /// The last video sequence number sent before the running probe started: NACKs of it and
    /// of older ones are about loss before the probe.
    package var probeBaseSequence: UInt16?
    /// Packets and payload octets sent per track, for our sender reports (RFC 3550 §6.4.1).
    package var videoPackets: UInt32 = 0
    package var videoOctets: UInt32 = 0
    package var audioPackets: UInt32 = 0
    package var audioOctets: UInt32 = 0
    /// Video payload octets sent (media, retransmissions and padding), sampled into
    /// ``videoPayloadRate``: a REMB counts payload, and aiortc's counts its video alone.
    package var videoPayloadBytes: UInt64 = 0
    private var sampledPayloadBytes: UInt64 = 0
    private var sampledAt: MonoTime?
    package private(set) var videoPayloadRate = 0
    /// Our last SRs per SSRC, to turn report blocks into RTT.
    package var sentSenderReports: [UInt32: SentSenderReports] = [:]
    package let cname: String

    package init(id: String, room: String, peer: PeerSession, negotiated: NegotiatedSession, localUfrag: String,
         etag: String, video: TrackRewriter?, audio: TrackRewriter?, cname: String, maximumHeight: Int?, startBitrate: Int,
         firstSequences: (rtx: UInt16, transport: UInt16), now: MonoTime) {
        rtxSequence = firstSequences.rtx
        self.video = video.map { LayeredVideoRewriter(rewriter: $0, target: nil) }
        self.audio = audio
        self.cname = cname
        let media = negotiated.media(of: .video)
        extensions = ViewerHeaderExtensions(
            absoluteSendTimeID: media?.extensionID(for: RTPHeaderExtensionURI.absSendTime),
            transportSequenceID: media?.codec.hasFeedback("transport-cc") == true
                ? media?.extensionID(for: RTPHeaderExtensionURI.transportWideCC) : nil,
            firstTransportSequence: firstSequences.transport)
        let feedback: ViewerBandwidthEstimator.Feedback =
            extensions.transportSequenceID != nil ? .transportCC
            : (media?.codec.hasFeedback("goog-remb") == true && extensions.absoluteSendTimeID != nil ? .remb : .receiverReports)
        estimator = ViewerBandwidthEstimator(feedback: feedback, start: startBitrate)
        selector = LayerSelector(maximumHeight: maximumHeight)
        if let media, let payloadType = media.codec.rtxPayloadType, let ssrc = media.localRTXSSRC {
            rtx = (ssrc, payloadType)
        } else {
            rtx = nil
        }
        super.init(id: id, room: room, kind: .viewer, peer: peer, negotiated: negotiated, localUfrag: localUfrag, etag: etag, now: now)
        if !repeatsNACKs { self.video?.skipAfterPause = 1_024 }
    }

    /// The viewer repeats its own NACKs (libwebrtc, every round trip); aiortc asks once per
    /// new gap, so the relay resends unasked until a NACK shows the packet arrived.
    package var repeatsNACKs: Bool { extensions.transportSequenceID != nil }

    /// At most one resend of a packet per this: the measured round trip (queueing included),
    /// at least 30 ms.
    package var resendInterval: Duration {
        .milliseconds(Int64(max(0.03, roundTripTime ?? 0.1) * 1000))
    }

    /// Retransmissions within half of what the viewer's link is believed to carry (20-300
    /// packets/s): through a dip, answering every NACK of a receiver that asks once per gap
    /// (and resending unasked) doubled what went into the thin link and starved its audio.
    /// None while its NACKs show it losing more than half of what is sent
    /// (``NACKLossMeter``): a repair then is lost as often as not and takes the room of video
    /// that could arrive (the holes get fillers, ``Room/giveUp``).
    package func fitRetransmissionBudget(now: MonoTime) {
        let heavyLoss = losesHeavily(now: now)
        retransmitBudget.ratePerSecond = heavyLoss ? 0 : min(300, max(20, Double(estimator.estimate) * 0.5 / (8 * 1200)))
        // A burst of at most a fifth of a second's worth: a dip's first NACKs must not bring
        // a hundred repairs at once into the link that just choked.
        retransmitBudget.burst = max(heavyLoss ? 0 : 4, retransmitBudget.ratePerSecond / 5)
    }

    /// Whether the viewer's NACKs show its link losing more than half of the video sent now.
    package func losesHeavily(now: MonoTime) -> Bool {
        (estimator.nackLoss.freshLoss(now: now) ?? 0) > 0.5
    }

    /// Updates ``videoPayloadRate`` (about once a second).
    package func sampleRates(now: MonoTime) {
        if let sampledAt, now > sampledAt {
            videoPayloadRate = Int(Double(videoPayloadBytes - sampledPayloadBytes) * 8 / (now - sampledAt).seconds)
        }
        sampledAt = now
        sampledPayloadBytes = videoPayloadBytes
    }
}
