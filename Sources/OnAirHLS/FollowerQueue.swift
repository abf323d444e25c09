/// The audio frames waiting for the lead (video) track to close a part.
///
/// Frames keep their input timestamps; a part takes every frame that starts before its
/// end. The queue is bounded: if video stops while audio keeps coming, the oldest frames
/// go first, so memory stays flat.
struct FollowerQueue {
    let trackID: UInt32
    let timescale: Int64
    let frameDuration: Int64
    let capacity: Int
    private var frames: [AudioFrame] = []
    /// Frames lost: overflow, sent before the first IDR, or left over at the end.
    private(set) var droppedFrames = 0

    init(trackID: UInt32, timescale: Int64, frameDuration: Int64, capacity: Int) {
        self.trackID = trackID
        self.timescale = timescale
        self.frameDuration = frameDuration
        self.capacity = capacity
        frames.reserveCapacity(capacity)
    }

    var lastTimestamp: Int64? { frames.last?.timestamp }
    var count: Int { frames.count }

    mutating func push(_ frame: AudioFrame) {
        if frames.count >= capacity {
            frames.removeFirst()
            droppedFrames += 1
        }
        frames.append(frame)
    }

    /// Empties the queue at the end of the stream, counting what is left as dropped.
    mutating func discardAll() {
        droppedFrames += frames.count
        frames.removeAll()
    }

    /// Drops the frames that start before `start` (they precede the lead track's first IDR).
    mutating func discard(before start: Int64) {
        let stale = frames.prefix { $0.timestamp < start }.count
        droppedFrames += stale
        frames.removeFirst(stale)
    }

    /// Removes the frames that start before `end` and returns them as a track fragment
    /// whose times count from `origin` (both in input timestamps of this track). Frames
    /// before `origin` (sent before the stream's first IDR) are discarded.
    mutating func take(before end: Int64, origin: Int64) -> TrackFragment? {
        var taken = 0
        var first: Int? = nil
        while taken < frames.count, frames[taken].timestamp < end {
            if first == nil, frames[taken].timestamp >= origin { first = taken }
            taken += 1
        }
        defer { frames.removeFirst(taken) }
        droppedFrames += (first ?? taken)
        guard let first else { return nil }
        var fragment = TrackFragment(trackID: trackID, baseMediaDecodeTime: UInt64(frames[first].timestamp - origin))
        fragment.samples.reserveCapacity(taken - first)
        for index in first..<taken {
            let frame = frames[index]
            var duration = frameDuration
            // A gap before the next frame (lost packets upstream) stays in the timeline.
            if index + 1 < taken {
                let gap = frames[index + 1].timestamp - frame.timestamp
                if gap > 0, gap <= 4 * frameDuration { duration = gap }
            }
            fragment.samples.append(FragmentSample(duration: UInt32(duration), size: UInt32(clamping: frame.data.count),
                                                   flags: .sync))
            fragment.data.append(contentsOf: frame.data)
        }
        return fragment
    }
}
