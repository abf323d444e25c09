/// What the relay serves: playlists, parts, segments, and the blocking-reload decisions.
extension LLHLSPackager {
    /// Whether a part is downloadable yet (RFC 8216bis §6.2.6).
    public enum PartAvailability: Sendable {
        case available(HLSPartialSegment)
        /// The part named by the preload hint: hold the request and answer it when
        /// ``Event/partPublished(number:position:)`` names it (§6.2.6: a hinted resource is
        /// requestable before it is complete, and no byte of it is sent before all are).
        case pending
        /// Never existed, no longer kept, or not hinted: 404.
        case notFound
    }

    public func part(number: Int) -> PartAvailability {
        if let part = store.part(number: number) { return .available(part) }
        if number == store.nextPartNumber, !isFinished { return .pending }
        return .notFound
    }

    /// A complete Media Segment still kept (listed, or removed from the playlist less
    /// than its availability time ago, §6.2.2).
    public func segment(mediaSequence: Int) -> HLSMediaSegment? { store.segment(mediaSequence: mediaSequence) }

    /// Complete segments still kept, oldest first.
    public var segments: [HLSMediaSegment] { store.complete }
    /// The segment in progress, with the parts published so far.
    public var segmentInProgress: HLSMediaSegment? { store.current }
    /// At least one part is out (before that a playlist request should wait, as a
    /// playlist without media is of no use to a player).
    public var hasContent: Bool { store.lastPart != nil }

    public var progress: PlaylistProgress {
        PlaylistProgress(lastMediaSequence: store.lastCompleteMediaSequence, lastPart: store.lastPart?.position,
                         hasEndList: isFinished, partTarget: configuration.partTarget)
    }

    /// RFC 8216bis §6.2.5.2: answer, wait, or refuse a playlist request.
    public func decide(_ request: PlaylistRequest) -> BlockingReloadDecision { progress.decide(request) }

    /// The Media Playlist now. Parts are listed for segments that start within three
    /// target durations of the playlist's end (§6.2.2: EXT-X-PART tags SHOULD go once
    /// further than that); the parts stay downloadable as long as their segment is kept.
    public func mediaPlaylist() -> MediaPlaylist {
        let names = configuration.names
        let end = store.endTicks ?? 0
        let partHorizon = end - 3 * Int64(targetDuration) * leadTimescale
        let listed = store.complete[store.firstListedIndex(windowTicks: windowTicks)...]
        let segments = listed.map { segment in
            MediaPlaylist.Segment(
                uri: names.segment(segment.mediaSequence), duration: segment.duration,
                programDateTime: programDateTime(atTicks: segment.startTicks),
                parts: segment.startTicks >= partHorizon ? segment.parts.map(playlistPart) : [])
        }
        let trailing = store.current?.parts ?? []
        return MediaPlaylist(
            targetDuration: targetDuration, partTarget: configuration.partTarget,
            mediaSequence: listed.first?.mediaSequence ?? store.current?.mediaSequence ?? store.nextMediaSequence,
            mapURI: names.initializationSegment, segments: Array(segments),
            trailingParts: trailing.map(playlistPart),
            trailingProgramDateTime: store.current.flatMap { programDateTime(atTicks: $0.startTicks) },
            preloadHintURI: isFinished ? nil : names.part(store.nextPartNumber), hasEndList: isFinished)
    }

    /// The Media Playlist's text, with `renditionReports` for the presentation's other renditions.
    public func renderMediaPlaylist(deltaUpdate: Bool = false, renditionReports: [RenditionReport] = []) -> String {
        var playlist = mediaPlaylist()
        playlist.renditionReports = renditionReports
        return playlist.render(deltaUpdate: deltaUpdate)
    }

    /// This presentation's Variant Stream: measured peak and average bit rates and frame
    /// rate (§4.4.6.2). Until a segment is complete, the average and the frame rate come from
    /// the parts published so far, and the peak is the configured estimate.
    public func variantStream(uri: String? = nil) -> VariantStream {
        var averageBandwidth: Int? = nil
        var frameRate: Int? = nil
        var totalTicks: Int64 = 0, bytes: Int64 = 0, frames: Int64 = 0
        for segment in store.complete {
            totalTicks += segment.durationTicks
            bytes += Int64(segment.bytes.count)
            frames += Int64(segment.leadSampleCount)
        }
        if totalTicks == 0, let current = store.current {
            for part in current.parts {
                totalTicks += part.durationTicks
                bytes += Int64(part.bytes.count)
                frames += Int64(part.leadSampleCount)
            }
        }
        if totalTicks > 0 {
            averageBandwidth = Int(bytes * 8 * leadTimescale / totalTicks)
            if leadIsVideo { frameRate = Int((frames * 1000 * leadTimescale + totalTicks / 2) / totalTicks) }
        }
        let resolution = tracks.video.map { VariantStream.Resolution(width: Int($0.width), height: Int($0.height)) }
        return VariantStream(
            // §4.4.6.2: BANDWIDTH is at least AVERAGE-BANDWIDTH, also while only parts are measured.
            bandwidth: max(peakBitrate > 0 ? peakBitrate : configuration.bandwidthEstimate, averageBandwidth ?? 0),
            averageBandwidth: averageBandwidth, codecs: tracks.codecs, resolution: resolution,
            frameRateMillihertz: frameRate, uri: uri ?? configuration.names.mediaPlaylist)
    }

    /// The Multivariant Playlist of this presentation alone.
    public func multivariantPlaylist() -> MultivariantPlaylist {
        MultivariantPlaylist(variants: [variantStream()])
    }

    private func playlistPart(_ part: HLSPartialSegment) -> MediaPlaylist.Part {
        MediaPlaylist.Part(uri: configuration.names.part(part.number), duration: part.duration,
                           isIndependent: part.isIndependent)
    }

    /// Unix milliseconds of a media time, from the anchor (nil without one).
    func programDateTime(atTicks ticks: Int64) -> Int64? {
        guard let anchor = programDateTimeAnchor, let origin = originTimestamp else { return nil }
        let offset = ticks + origin - anchor.mediaTimestamp
        return anchor.unixMilliseconds + offset * 1000 / leadTimescale
    }
}
