import OnAirRTP
import OnAirSDP
import OnAirWire

/// What a room's viewers are fed from: the stream's video layers (each with its packets for
/// viewers' NACKs, its sender clock and its rates), its audio rate and its latest sender
/// reports. The publisher's worker keeps the one its ``PublisherSession`` fills; a worker
/// whose viewers watch a stream published on another worker keeps a replica, filled from the
/// publisher's ``StreamFeed`` (both confined to their worker's loop).
package final class StreamSource {
    /// The publisher's negotiated session: what viewers' answers are built against.
    package let negotiated: NegotiatedSession
    package let videoPayloadType: UInt8?
    package let audioPayloadType: UInt8?
    package let videoClockRate: UInt32
    package let audioClockRate: UInt32
    /// Simulcast: the rids in the offer's order of preference.
    package let videoRIDs: [String]
    /// Every video encoding received (simulcast layers), in order of arrival. Each viewer
    /// gets one of them (``LayerSelector``).
    package var videoLayers: [ReceivedLayer] = []
    /// Packets kept per layer for viewers' NACKs.
    package let cacheSize: Int
    /// The audio SSRC forwarded, once known.
    package var audioSSRC: UInt32?
    /// Audio octets received, and the audio bitrate over the last second (a viewer's audio is
    /// part of what its link must carry).
    package var audioBytes: UInt64 = 0
    private var sampledAudioBytes: UInt64 = 0
    package private(set) var audioBitrate: Double = 0
    private var sampledAt: MonoTime?
    /// The publisher's latest sender report per SSRC, with when it arrived (for LSR/DLSR and
    /// for translating into viewers' sender reports).
    package var senderReports: [UInt32: (report: SenderReport, arrivedAt: MonoTime)] = [:]
    /// More SSRCs than this are not listed (a publisher cycling SSRCs must not grow the list).
    package static let maximumListedLayers = 8

    package init(negotiated: NegotiatedSession, cacheSize: Int = 1024) {
        self.negotiated = negotiated
        let video = negotiated.media(of: .video)
        let audio = negotiated.media(of: .audio)
        videoPayloadType = video?.codec.payloadType
        audioPayloadType = audio?.codec.payloadType
        videoClockRate = video?.codec.clockRate ?? 90_000
        audioClockRate = audio?.codec.clockRate ?? 48_000
        videoRIDs = video?.rids ?? []
        self.cacheSize = cacheSize
    }

    /// The ``videoLayers`` entry of `ssrc`, added on its first packet; nil past the listing limit.
    @inline(__always)
    package func videoLayerIndex(ssrc: UInt32, rank: Int) -> Int? {
        for index in videoLayers.indices where videoLayers[index].ssrc == ssrc { return index }
        guard videoLayers.count < Self.maximumListedLayers else { return nil }
        videoLayers.append(ReceivedLayer(ssrc: ssrc, rid: rid(rank: rank), rank: rank, cacheSize: cacheSize))
        return videoLayers.count - 1
    }

    /// A replica's layer `index` in the publisher's worker's numbering (layers are numbered in
    /// the order their first packets arrived there; a replica may see them first in another
    /// order), made when its first record comes. Layers not heard of yet hold a place: they
    /// have no packets, so no viewer is put on them.
    /// A new layer starts from the rates the publisher's worker last measured (`feed`).
    @inline(__always)
    package func replicaLayer(index: Int, ssrc: UInt32, rank: Int, feed: StreamFeed) -> Int? {
        guard index >= 0 && index < Self.maximumListedLayers else { return nil }
        if index < videoLayers.count && videoLayers[index].ssrc == ssrc { return index }
        while videoLayers.count <= index { videoLayers.append(ReceivedLayer(ssrc: 0, rid: nil, cacheSize: 1)) }
        videoLayers[index] = ReceivedLayer(ssrc: ssrc, rid: rid(rank: rank), rank: rank, cacheSize: cacheSize)
        videoLayers[index].seed(feed.layerRates(index))
        return index
    }

    /// The rid at `rank` in the offer's list, if there is one.
    private func rid(rank: Int) -> String? { videoRIDs.indices.contains(rank) ? videoRIDs[rank] : nil }

    /// The layer of a video SSRC, if it is one.
    package func videoLayer(ssrc: UInt32) -> Int? {
        videoLayers.firstIndex { $0.ssrc == ssrc }
    }

    /// Samples the layers' rates and the audio bitrate (once a second).
    package func sampleRates(now: MonoTime) {
        for index in videoLayers.indices { videoLayers[index].sample(now: now) }
        if let sampledAt, now > sampledAt { audioBitrate = Double(audioBytes - sampledAudioBytes) * 8 / (now - sampledAt).seconds }
        sampledAt = now
        sampledAudioBytes = audioBytes
    }

    package var keyframes: UInt64 { videoLayers.reduce(0) { $0 + $1.keyframes } }
}
