/// A Media Playlist of an LL-HLS stream (RFC 8216bis §4.4.3, §4.4.4, §4.4.5) as values,
/// and its text.
public struct MediaPlaylist: Sendable, Equatable {
    /// RFC 8216bis §4.4.4.9 EXT-X-PART.
    public struct Part: Sendable, Equatable {
        public var uri: String
        public var duration: Duration
        public var isIndependent: Bool

        public init(uri: String, duration: Duration, isIndependent: Bool) {
            self.uri = uri
            self.duration = duration
            self.isIndependent = isIndependent
        }
    }

    /// A complete Media Segment: EXTINF + URI (§4.4.4.1), with its parts while they are
    /// near the live edge, and its EXT-X-PROGRAM-DATE-TIME (§4.4.4.6) in Unix milliseconds.
    public struct Segment: Sendable, Equatable {
        public var uri: String
        public var duration: Duration
        public var programDateTime: Int64?
        public var parts: [Part]

        public init(uri: String, duration: Duration, programDateTime: Int64? = nil, parts: [Part] = []) {
            self.uri = uri
            self.duration = duration
            self.programDateTime = programDateTime
            self.parts = parts
        }
    }

    public var targetDuration: Int
    public var partTarget: Duration
    public var mediaSequence: Int
    public var mapURI: String
    public var segments: [Segment]
    /// Parts of the segment in progress, after the last complete segment.
    public var trailingParts: [Part]
    public var trailingProgramDateTime: Int64?
    /// §4.4.5.3 EXT-X-PRELOAD-HINT TYPE=PART: the next part; nil at the end.
    public var preloadHintURI: String?
    public var hasEndList: Bool
    /// §4.4.5.4: the other renditions of the presentation, where they stand.
    public var renditionReports: [RenditionReport] = []

    public init(targetDuration: Int, partTarget: Duration, mediaSequence: Int, mapURI: String,
                segments: [Segment], trailingParts: [Part] = [], trailingProgramDateTime: Int64? = nil,
                preloadHintURI: String?, hasEndList: Bool) {
        self.targetDuration = targetDuration
        self.partTarget = partTarget
        self.mediaSequence = mediaSequence
        self.mapURI = mapURI
        self.segments = segments
        self.trailingParts = trailingParts
        self.trailingProgramDateTime = trailingProgramDateTime
        self.preloadHintURI = preloadHintURI
        self.hasEndList = hasEndList
    }

    /// §4.4.3.8 CAN-SKIP-UNTIL: the Skip Boundary, which MUST be at least six target durations.
    public var skipBoundary: Duration { .seconds(6 * targetDuration) }
    /// §4.4.3.8 HOLD-BACK: at least three target durations.
    public var holdBack: Duration { .seconds(3 * targetDuration) }
    /// §4.4.3.8 PART-HOLD-BACK: at least twice, and SHOULD be three times, the part target.
    public var partHoldBack: Duration { partTarget * 3 }

    /// Segments a Playlist Delta Update replaces with EXT-X-SKIP (§6.2.5.1): those whose
    /// end is further than the Skip Boundary from the end of the last segment.
    public var skippableSegmentCount: Int {
        var fromEnd = Duration.zero
        var keep = 0
        for segment in segments.reversed() {
            if fromEnd > skipBoundary { break }
            keep += 1
            fromEnd += segment.duration
        }
        return segments.count - keep
    }

    /// The playlist text. `deltaUpdate` (a `_HLS_skip=YES|v2` request) skips old segments
    /// with EXT-X-SKIP (§4.4.5.2), which needs version 9 (§8); it is ignored once the
    /// playlist has EXT-X-ENDLIST (§6.2.5.1). Otherwise version 6 suffices: EXT-X-MAP
    /// in a playlist without EXT-X-I-FRAMES-ONLY needs 6, and nothing here needs more.
    public func render(deltaUpdate: Bool = false) -> String {
        let skipped = deltaUpdate && !hasEndList ? skippableSegmentCount : 0
        var lines: [String] = ["#EXTM3U", "#EXT-X-VERSION:\(skipped > 0 ? 9 : 6)"]
        lines.append("#EXT-X-TARGETDURATION:\(targetDuration)")
        lines.append("#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES"
            + ",CAN-SKIP-UNTIL=" + MediaTime.decimalSeconds(skipBoundary, fractionDigits: 1)
            // Rounded up: 3 x 0.33334 s must not become 1.000, under three part targets.
            + ",PART-HOLD-BACK=" + MediaTime.decimalSeconds(partHoldBack, fractionDigits: 3, roundingUp: true)
            + ",HOLD-BACK=" + MediaTime.decimalSeconds(holdBack, fractionDigits: 1))
        lines.append("#EXT-X-PART-INF:PART-TARGET=" + MediaTime.decimalSeconds(partTarget, fractionDigits: 5, trimmed: true))
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        lines.append("#EXT-X-MAP:URI=\"\(mapURI)\"")
        if skipped > 0 { lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skipped)") }
        for segment in segments.dropFirst(skipped) {
            if let date = segment.programDateTime { lines.append(Self.dateLine(date)) }
            for part in segment.parts { lines.append(Self.partLine(part)) }
            lines.append("#EXTINF:" + MediaTime.decimalSeconds(segment.duration, fractionDigits: 5) + ",")
            lines.append(segment.uri)
        }
        if !trailingParts.isEmpty, let date = trailingProgramDateTime { lines.append(Self.dateLine(date)) }
        for part in trailingParts { lines.append(Self.partLine(part)) }
        if !hasEndList, let hint = preloadHintURI { lines.append("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(hint)\"") }
        if hasEndList { lines.append("#EXT-X-ENDLIST") }
        lines += renditionReports.map(\.line)
        return lines.joined(separator: "\n") + "\n"
    }

    static func partLine(_ part: Part) -> String {
        "#EXT-X-PART:DURATION=" + MediaTime.decimalSeconds(part.duration, fractionDigits: 5)
            + ",URI=\"\(part.uri)\"" + (part.isIndependent ? ",INDEPENDENT=YES" : "")
    }

    static func dateLine(_ unixMilliseconds: Int64) -> String {
        "#EXT-X-PROGRAM-DATE-TIME:" + ProgramDateTime.format(unixMilliseconds: unixMilliseconds)
    }
}
