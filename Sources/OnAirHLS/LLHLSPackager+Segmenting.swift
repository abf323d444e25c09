/// Where parts and segments are cut (RFC 8216bis §4.4.4.9 EXT-X-PART, §6.2.1).
///
/// - A part ends as soon as its next lead sample could not fit in the part target. The
///   last sample's duration is predicted from the previous interval, so the part is
///   published the moment its last frame arrives rather than one frame later.
/// - A segment ends at the first IDR at or after the segment target.
/// - An IDR inside a segment (a viewer's PLI, a shorter GOP) starts a new part only if
///   the part it would close is long enough: §4.4.4.9 requires every part that is neither
///   INDEPENDENT=YES nor the last of its segment to last at least 85% of the part target.
///   Otherwise the IDR goes into the open part as an ordinary (sync) sample.
/// - INDEPENDENT=YES marks exactly the parts that begin with an IDR. §4.4.4.9 would allow
///   it on any part containing one, but a player starting at such a part would first
///   feed its decoder P-frames whose references it never received.
extension LLHLSPackager {
    mutating func appendLead(_ data: [UInt8], timestamp: Int64, isSync: Bool) throws(HLSPackagerError) -> [Event] {
        var events: [Event] = []
        if !hasStarted {
            guard isSync, timestamp >= originTimestamp ?? timestamp else {
                droppedWhileAwaitingKeyframe += 1
                return []
            }
            let origin = originTimestamp ?? timestamp
            originTimestamp = origin
            hasStarted = true
            if var queue = follower {
                queue.discard(before: MediaTime.rescale(timestamp, from: leadTimescale, to: queue.timescale))
                follower = queue
            }
            store.openSegment(startTicks: timestamp - origin)
        }
        if let previous = lastLeadInput, timestamp <= previous {
            throw .timestampNotIncreasing(previous: previous, received: timestamp)
        }
        let ticks = timestamp - (originTimestamp ?? timestamp)
        if videoStalled {
            // Audio carried the stream meanwhile; only an IDR can start video again.
            guard isSync else {
                droppedWhileAwaitingKeyframe += 1
                return []
            }
            resumeVideo(atTicks: ticks, events: &events)
        } else if let last = lastLeadTicks {
            let interval = ticks - last
            open?.settleLastDuration(interval, limit: partTargetTicks)
            // Frame intervals predict the next one; a pause (frames lost upstream) does not.
            if interval * 2 <= partTargetTicks { leadDelta = interval }
        }
        let segmentStart = store.current?.startTicks ?? ticks
        if isSync, ticks - segmentStart >= segmentTargetTicks {
            closePart(events: &events)
            closeSegment(endTicks: ticks, events: &events)
            store.openSegment(startTicks: ticks)
            keyframeRequests = 0
        } else if let part = open, !part.isEmpty,
                  ticks - part.startTicks + leadDelta > partTargetTicks || part.endTicks < ticks
                    || (isSync && leadIsVideo && (part.isIndependent || meetsPartFloor(ticks - part.startTicks))) {
            closePart(events: &events)
        }
        var part = open ?? PartAssembler(trackID: 1, startTicks: ticks, isIndependent: isSync)
        part.appendLead(data, duration: leadDelta, isSync: isSync)
        open = part
        lastLeadTicks = ticks
        lastLeadInput = timestamp

        // Ask again every segment target while no IDR comes (a PLI can be lost).
        let elapsed = ticks - (store.current?.startTicks ?? ticks)
        if leadIsVideo, !isSync, elapsed >= segmentTargetTicks * Int64(keyframeRequests + 1) {
            keyframeRequests += 1
            events.append(.keyframeWanted)
        }
        if part.durationTicks + leadDelta > partTargetTicks {
            closePart(events: &events)
        }
        return events
    }

    /// Publishes the open part, ending where its samples end, with the follower's frames
    /// that start before that. At the end of the stream `takeAllFollowerFrames` puts
    /// every queued frame in it.
    mutating func closePart(takeAllFollowerFrames: Bool = false, events: inout [Event]) {
        guard let part = open else { return }
        open = nil
        guard !part.isEmpty else { return }
        var followerFragment: TrackFragment? = nil
        if var queue = follower, let origin = originTimestamp {
            let followerOrigin = MediaTime.rescale(origin, from: leadTimescale, to: queue.timescale)
            let end = takeAllFollowerFrames ? Int64.max
                : followerOrigin + MediaTime.rescale(part.endTicks, from: leadTimescale, to: queue.timescale)
            followerFragment = queue.take(before: end, origin: followerOrigin)
            follower = queue
        }
        publish(part.fragment(sequenceNumber: nextFragmentSequence, follower: followerFragment),
                startTicks: part.startTicks, endTicks: part.endTicks, isIndependent: part.isIndependent,
                leadSamples: part.sampleCount, events: &events)
    }

    mutating func publish(_ bytes: [UInt8], startTicks: Int64, endTicks: Int64, isIndependent: Bool,
                          leadSamples: Int, events: inout [Event]) {
        nextFragmentSequence &+= 1
        guard let published = store.publishPart(bytes: bytes, startTicks: startTicks, endTicks: endTicks,
                                                isIndependent: isIndependent, leadSamples: leadSamples)
        else { return }
        revision += 1
        events.append(.partPublished(number: published.number, position: published.position))
    }

    /// Completes the segment in progress, updates the target duration and the measured
    /// bitrate, and drops what fell out of the window.
    mutating func closeSegment(endTicks: Int64, events: inout [Event]) {
        guard let segment = store.closeSegment(endTicks: endTicks) else { return }
        let ticks = max(1, segment.durationTicks)
        // RFC 8216bis §4.4.3.1: EXTINF rounded to the nearest integer (halves up).
        let rounded = Int((ticks * 2 + leadTimescale) / (2 * leadTimescale))
        targetDuration = max(targetDuration, rounded)
        peakBitrate = max(peakBitrate, Int(Int64(segment.bytes.count) * 8 * leadTimescale / ticks))
        store.evict(nowTicks: endTicks, windowTicks: windowTicks, graceTicks: 2 * Int64(targetDuration) * leadTimescale)
        revision += 1
        events.append(.segmentCompleted(mediaSequence: segment.mediaSequence))
    }

    /// §4.4.4.9: at least 85% of the part target.
    func meetsPartFloor(_ ticks: Int64) -> Bool { ticks * 100 >= partTargetTicks * 85 }

    /// The media the playlist lists: the configured window, and never under three target
    /// durations (RFC 8216bis §6.2.2).
    var windowTicks: Int64 {
        max(MediaTime.ticks(configuration.playlistWindow, timescale: leadTimescale),
            3 * Int64(targetDuration) * leadTimescale)
    }
}
