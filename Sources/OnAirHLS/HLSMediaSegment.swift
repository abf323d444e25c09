/// A Media Segment (RFC 8216bis §3): the Partial Segments between two cut points, back to
/// back. Complete once the next segment's IDR arrived (or the stream ended).
public struct HLSMediaSegment: Sendable {
    public let mediaSequence: Int
    /// Media time of the first sample since the stream's first IDR.
    public let start: Duration
    /// EXTINF duration: from this segment's first sample to the next segment's first.
    public internal(set) var duration: Duration
    public internal(set) var parts: [HLSPartialSegment]
    /// The whole segment, set when it is complete.
    public internal(set) var bytes: [UInt8]
    public internal(set) var isComplete: Bool

    let startTicks: Int64
    var endTicks: Int64
    /// Lead-track samples, for the measured frame rate.
    var leadSampleCount: Int

    init(mediaSequence: Int, startTicks: Int64, timescale: Int64) {
        self.mediaSequence = mediaSequence
        self.startTicks = startTicks
        self.endTicks = startTicks
        self.start = MediaTime.duration(ticks: startTicks, timescale: timescale)
        self.duration = .zero
        self.parts = []
        self.bytes = []
        self.isComplete = false
        self.leadSampleCount = 0
    }

    /// Joins the parts into the segment's bytes and re-points every part at its slice.
    mutating func complete(endTicks: Int64, timescale: Int64) {
        self.endTicks = endTicks
        duration = MediaTime.duration(ticks: endTicks - startTicks, timescale: timescale)
        var joined: [UInt8] = []
        joined.reserveCapacity(parts.reduce(0) { $0 + $1.bytes.count })
        for part in parts { joined.append(contentsOf: part.bytes) }
        var offset = 0
        for index in parts.indices {
            let count = parts[index].bytes.count
            parts[index].bytes = joined[offset..<offset + count]
            offset += count
        }
        bytes = joined
        isComplete = true
    }

    var durationTicks: Int64 { endTicks - startTicks }
    var firstPartNumber: Int? { parts.first?.number }
}
