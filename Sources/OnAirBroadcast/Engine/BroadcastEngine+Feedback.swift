import OnAirRateControl
import OnAirRTP
import OnAirWire

extension BroadcastEngine {
    /// Applies what RTCP said since the last look: keyframe requests (rate-limited, RFC 4585
    /// §6.3.1 PLI / RFC 5104 §4.3.1 FIR), receiver reports (loss, jitter, RTT per RFC 3550
    /// §6.4.1), REMB and transport-cc to the bitrate controller, and the controller's decision to
    /// x264 (x264_encoder_reconfig) and Opus FEC. Returns true when an IDR is due.
    func applyFeedback(_ connection: PublishingConnection, now: UInt64) -> Bool {
        let feedback = connection.takeFeedback() ?? FeedbackEvents()
        // The media loop's nanoseconds are ``MonoTime``'s clock (``Clocks/monotonic()``).
        let time = MonoTime(nanoseconds: now)
        for (block, arrival) in feedback.reportBlocks {
            if connection.videoStream(ssrc: block.ssrc) != nil {
                let rtt = roundTrip.update(reportBlock: block, arrivalNTP: arrival)
                let link = LinkStatistics(reportBlock: block, clockRate: 90_000, roundTripTime: roundTrip.smoothed ?? rtt)
                statistics.lossFraction = link.fractionLost
                statistics.jitter = link.jitter.seconds
                statistics.roundTripTime = link.roundTripTime?.seconds
                statistics.cumulativeLost = Int64(link.cumulativeLost)
                controller.handle(reportBlock: block, now: time)
                pipeline.opus?.setExpectedLoss(percent: Int(link.lossPercent.rounded()))
            } else if let audio = connection.audio, block.ssrc == audio.ssrc, statistics.roundTripTime == nil {
                statistics.roundTripTime = roundTrip.update(reportBlock: block, arrivalNTP: arrival)?.seconds
            }
        }
        // REMB and transport-cc estimate the whole session; the controller steers video only.
        let audioShare = pipeline.opus == nil ? 0 : settings.audioBitrate
        for bitrate in feedback.rembBitrates {
            controller.handle(rembBitrate: max(0, bitrate - audioShare), now: time)
        }
        for report in feedback.transportFeedback {
            var summary = transportFeedback.feedback(report, now: time)
            if let acknowledged = summary.acknowledgedBitrate { summary.acknowledgedBitrate = max(0, acknowledged - audioShare) }
            controller.handle(transportFeedback: summary, now: time)
        }
        if let bitrate = controller.pollChange(now: time) {
            pipeline.setVideoBitrate(bitrate)
        }
        if pipeline.isSimulcast {
            // A paused layer comes back only if the estimate reaches its resume total; sending
            // less than the target, the estimate may grow past what is acknowledged up to it.
            resumeBackoff.layersActive(pipeline.allocator.activeCount, now: time)
            controller.probeCeiling = resumeBackoff.mayTry(now: time) ? pipeline.allocator.resumeTotal : nil
        }
        statistics.targetBitrate = controller.encoderBitrate
        statistics.layers = pipeline.isSimulcast ? pipeline.activeLayerNames : nil
        statistics.bitrateReason = controller.lastChangeReason.description
        statistics.keyframeRequests += feedback.keyframeRequests
        guard feedback.keyframeRequested else { return false }
        // At most one forced IDR per ``minimumForcedKeyframeInterval``: a burst of PLIs from
        // many viewers is one keyframe, and a viewer joining just after one waits little.
        if let last = lastForcedKeyframe, now - last < Self.minimumForcedKeyframeInterval {
            pendingKeyframe = true
            return false
        }
        lastForcedKeyframe = now
        return true
    }

    /// 150 ms, nanoseconds. Our relay keeps one request per layer outstanding until its keyframe
    /// comes, so this bounds what other servers' unfiltered PLIs can cost (about 6 IDRs/s).
    static let minimumForcedKeyframeInterval: UInt64 = 150_000_000

    /// A keyframe request that arrived inside the rate limit is honoured when the limit ends.
    func pendingKeyframeDue(now: UInt64) -> Bool {
        guard pendingKeyframe, let last = lastForcedKeyframe, now - last >= Self.minimumForcedKeyframeInterval else { return false }
        pendingKeyframe = false
        lastForcedKeyframe = now
        return true
    }
}
