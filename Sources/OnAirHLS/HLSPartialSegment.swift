/// A published Partial Segment (RFC 8216bis §3.1.2, §4.4.4.9 EXT-X-PART): one movie
/// fragment ('moof' + 'mdat') holding every track's samples for its time span.
public struct HLSPartialSegment: Sendable {
    /// Stream-wide part number, which names the part's URI (see ``HLSResourceNames``).
    public let number: Int
    public let position: PartPosition
    /// EXT-X-PART DURATION: the span of the lead (video) track in this part.
    public let duration: Duration
    /// EXT-X-PART INDEPENDENT=YES: the part starts with an IDR access unit (or the stream
    /// is audio only, where every frame decodes on its own).
    public let isIndependent: Bool
    /// The fragment's bytes; once the parent segment is complete this is a slice of the
    /// segment's bytes, so a part and its segment share one copy in memory.
    public internal(set) var bytes: ArraySlice<UInt8>

    /// Decode time of the part's first lead-track sample, in the lead track's timescale
    /// (the 'tfdt' of its lead 'traf').
    public let startTicks: Int64
    let durationTicks: Int64
    /// Lead-track (video) samples in the part: 0 for the audio-only parts that carry the
    /// stream while video stalls.
    public let leadSampleCount: Int
}
