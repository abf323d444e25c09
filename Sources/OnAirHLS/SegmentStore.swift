/// The segments and parts a presentation still serves, oldest first, plus the one in
/// progress. Memory is bounded by the window: complete segments are dropped once they
/// left the playlist and their availability time passed (RFC 8216bis §6.2.2).
struct SegmentStore {
    let timescale: Int64
    private(set) var complete: [HLSMediaSegment] = []
    private(set) var current: HLSMediaSegment? = nil
    private(set) var nextPartNumber = 0
    private(set) var nextMediaSequence = 0

    init(timescale: Int64) { self.timescale = timescale }

    /// Numbers the next segment `mediaSequence`: a rendition joining a presentation takes
    /// the number its other renditions gave the segment starting at the same time.
    mutating func numberNextSegment(_ mediaSequence: Int) {
        nextMediaSequence = mediaSequence
    }

    mutating func openSegment(startTicks: Int64) {
        current = HLSMediaSegment(mediaSequence: nextMediaSequence, startTicks: startTicks, timescale: timescale)
        nextMediaSequence += 1
    }

    /// Publishes a part into the segment in progress and returns it.
    mutating func publishPart(bytes: [UInt8], startTicks: Int64, endTicks: Int64, isIndependent: Bool,
                              leadSamples: Int) -> HLSPartialSegment? {
        guard var segment = current else { return nil }
        let part = HLSPartialSegment(
            number: nextPartNumber,
            position: PartPosition(mediaSequence: segment.mediaSequence, index: segment.parts.count),
            duration: MediaTime.duration(ticks: endTicks - startTicks, timescale: timescale),
            isIndependent: isIndependent, bytes: bytes[...], startTicks: startTicks,
            durationTicks: endTicks - startTicks, leadSampleCount: leadSamples)
        nextPartNumber += 1
        segment.parts.append(part)
        segment.endTicks = endTicks
        segment.leadSampleCount += leadSamples
        current = segment
        return part
    }

    /// Completes the segment in progress; returns it unless it had no part.
    mutating func closeSegment(endTicks: Int64) -> HLSMediaSegment? {
        guard var segment = current else { return nil }
        current = nil
        guard !segment.parts.isEmpty else {
            nextMediaSequence -= 1     // never announced: reuse its number
            return nil
        }
        segment.complete(endTicks: endTicks, timescale: timescale)
        complete.append(segment)
        return segment
    }

    /// Index in `complete` of the first segment the playlist lists: the shortest run of
    /// newest segments lasting at least `windowTicks`.
    func firstListedIndex(windowTicks: Int64) -> Int {
        var total: Int64 = 0
        var index = complete.count
        while index > 0, total < windowTicks {
            index -= 1
            total += complete[index].durationTicks
        }
        return index
    }

    /// Drops segments that are out of the playlist and more than `graceTicks` older than
    /// `nowTicks` (§6.2.2: a removed segment stays available for its availability duration).
    mutating func evict(nowTicks: Int64, windowTicks: Int64, graceTicks: Int64) {
        let listed = firstListedIndex(windowTicks: windowTicks)
        var drop = 0
        while drop < listed, nowTicks - complete[drop].endTicks > windowTicks + graceTicks { drop += 1 }
        complete.removeFirst(drop)
    }

    /// The newest published part.
    var lastPart: HLSPartialSegment? { current?.parts.last ?? complete.last?.parts.last }
    var lastCompleteMediaSequence: Int? { complete.last?.mediaSequence }
    /// End of the newest published media, lead ticks.
    var endTicks: Int64? {
        if let current, !current.parts.isEmpty { return current.endTicks }
        return complete.last?.endTicks
    }

    func segment(mediaSequence: Int) -> HLSMediaSegment? {
        guard let first = complete.first?.mediaSequence else { return nil }
        let index = mediaSequence - first
        return complete.indices.contains(index) ? complete[index] : nil
    }

    func part(number: Int) -> HLSPartialSegment? {
        if let current, let first = current.firstPartNumber, number >= first {
            return current.parts.indices.contains(number - first) ? current.parts[number - first] : nil
        }
        for segment in complete.reversed() {
            guard let first = segment.firstPartNumber else { continue }
            if number >= first { return segment.parts.indices.contains(number - first) ? segment.parts[number - first] : nil }
        }
        return nil
    }
}
