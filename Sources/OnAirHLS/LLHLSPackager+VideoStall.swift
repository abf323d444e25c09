/// When video stops but audio goes on (a publisher turning its camera off, or a long
/// loss), audio carries the muxed stream: parts hold only audio frames, segments are cut
/// by audio time (every sample of an audio-only segment decodes on its own, so
/// EXT-X-INDEPENDENT-SEGMENTS stays true), and a keyframe is requested. Video comes back
/// with the next IDR; access units before it are dropped.
///
/// Without this the playlist would stop growing (RFC 8216bis §6.2.1 wants a new part
/// every part target) and players would stall.
extension LLHLSPackager {
    /// Video counts as stalled once queued audio runs this far past the last video frame:
    /// well beyond the jitter between two tracks of one publisher.
    var stallThresholdTicks: Int64 { max(leadTimescale, 3 * partTargetTicks) }

    /// Called after each audio frame is queued.
    mutating func followAudioIfVideoStalled(events: inout [Event]) {
        guard leadIsVideo, let queue = follower, let origin = originTimestamp, let last = lastLeadTicks,
              let newest = queue.lastTimestamp else { return }
        let followerOrigin = MediaTime.rescale(origin, from: leadTimescale, to: queue.timescale)
        let audioEnd = MediaTime.rescale(newest + queue.frameDuration - followerOrigin, from: queue.timescale, to: leadTimescale)
        if !videoStalled {
            guard audioEnd - (last + leadDelta) > stallThresholdTicks else { return }
            videoStalled = true
            closePart(events: &events)
            events.append(.keyframeWanted)
        }
        publishAudioOnlyParts(before: audioEnd, flushRemainder: false, events: &events)
    }

    /// An IDR ends the stall: the audio before it goes out first, so the timeline stays
    /// continuous. The frame that straddles the IDR waits for the IDR's part.
    mutating func resumeVideo(atTicks ticks: Int64, events: inout [Event]) {
        publishAudioOnlyParts(before: ticks, flushRemainder: true, events: &events)
        videoStalled = false
    }

    /// Publishes audio-only parts of whole frames, each at most the part target, from the
    /// end of what is published up to `limit` (lead ticks). Without `flushRemainder` only
    /// full-length parts go out (more audio will come).
    mutating func publishAudioOnlyParts(before limit: Int64, flushRemainder: Bool, events: inout [Event]) {
        guard var queue = follower, let origin = originTimestamp else { return }
        let followerOrigin = MediaTime.rescale(origin, from: leadTimescale, to: queue.timescale)
        while let segment = store.current {
            let start = segment.endTicks
            if !flushRemainder, limit - start < partTargetTicks { break }
            if !segment.parts.isEmpty, start - segment.startTicks >= segmentTargetTicks {
                closeSegment(endTicks: start, events: &events)
                store.openSegment(startTicks: start)
                events.append(.keyframeWanted)
            }
            let partEnd = min(start + partTargetTicks, limit)
            let lastFrameStart = followerOrigin + MediaTime.rescale(partEnd, from: leadTimescale, to: queue.timescale)
                - queue.frameDuration
            guard let fragment = queue.take(before: lastFrameStart + 1, origin: followerOrigin) else { break }
            let end = MediaTime.rescale(Int64(fragment.baseMediaDecodeTime + fragment.duration),
                                        from: queue.timescale, to: leadTimescale)
            var writer = BoxWriter(capacity: fragment.data.count + 256)
            MovieFragment(sequenceNumber: nextFragmentSequence, tracks: [fragment]).write(to: &writer)
            publish(writer.bytes, startTicks: start, endTicks: max(end, start + 1), isIndependent: true,
                    leadSamples: 0, events: &events)
        }
        follower = queue
    }
}
