/// Collects the samples of the Partial Segment being built and writes its fragment.
///
/// The lead track (video, or audio when there is no video) decides where parts begin and
/// end; the other track's frames are added when the part closes, taking every frame that
/// starts before the part's end.
struct PartAssembler {
    let startTicks: Int64
    let isIndependent: Bool
    private(set) var lead: TrackFragment

    init(trackID: UInt32, startTicks: Int64, isIndependent: Bool) {
        self.startTicks = startTicks
        self.isIndependent = isIndependent
        lead = TrackFragment(trackID: trackID, baseMediaDecodeTime: UInt64(startTicks))
        lead.data.reserveCapacity(64 * 1024)
    }

    var sampleCount: Int { lead.samples.count }
    var isEmpty: Bool { lead.samples.isEmpty }

    /// The lead track's span so far, counting the last sample's (provisional) duration.
    var durationTicks: Int64 { Int64(lead.duration) }

    mutating func appendLead(_ data: [UInt8], duration: Int64, isSync: Bool) {
        lead.samples.append(FragmentSample(duration: UInt32(clamping: duration), size: UInt32(clamping: data.count),
                                           flags: isSync ? .sync : .nonSync))
        lead.data.append(contentsOf: data)
    }

    /// End of the part on the lead track's timeline.
    var endTicks: Int64 { startTicks + durationTicks }

    /// Replaces the last sample's provisional duration once the next sample's time is
    /// known, but never so that the part outgrows `limit` (RFC 8216bis §4.4.4.9: a part
    /// lasts at most the part target). A longer interval (frames lost upstream) leaves a
    /// hole in the timeline after this part instead.
    mutating func settleLastDuration(_ interval: Int64, limit: Int64) {
        guard let last = lead.samples.last else { return }
        let before = durationTicks - Int64(last.duration)
        let duration = max(1, min(interval, max(Int64(last.duration), limit - before)))
        lead.samples[lead.samples.count - 1].duration = UInt32(clamping: duration)
    }

    /// The part's fragment: the lead track, then the follower's frames if any.
    func fragment(sequenceNumber: UInt32, follower: TrackFragment?) -> [UInt8] {
        var tracks = [lead]
        if let follower, !follower.samples.isEmpty { tracks.append(follower) }
        var writer = BoxWriter(capacity: lead.data.count + (follower?.data.count ?? 0) + 512)
        MovieFragment(sequenceNumber: sequenceNumber, tracks: tracks).write(to: &writer)
        return writer.bytes
    }
}
