import OnAirWire

/// What the doctor's media run saw.
struct DoctorMediaResult: Sendable {
    var connectedAfter: Double?
    var profile = "-"
    var keyframeRoundTrip: Double?
    var rtcpSeen = false
}

/// The doctor's media thread: ICE + DTLS, then a few seconds of test pattern, timing the answer
/// to the endpoint's first keyframe request (PLI/FIR arrival to our IDR's first packet).
enum DoctorMediaCheck {
    static func run(_ connection: PublishingConnection, pipeline: MediaPipeline) -> DoctorMediaResult {
        var result = DoctorMediaResult()
        let start = Clocks.monotonic()
        guard connection.awaitConnected(timeout: 10_000_000_000, stopRequested: { false }) == .connected else { return result }
        result.connectedAfter = Double(Clocks.monotonic() - start) / 1e9
        result.profile = connection.session.profile.map { "\($0)" } ?? "-"
        pipeline.start(now: Clocks.monotonic())
        let mediaStart = Clocks.monotonic()
        var first = true
        while Clocks.monotonic() - mediaStart < 4_000_000_000, !connection.isClosed {
            let now = Clocks.monotonic()
            let feedback = connection.takeFeedback() ?? FeedbackEvents()
            if !feedback.reportBlocks.isEmpty || !feedback.rembBitrates.isEmpty || !feedback.transportFeedback.isEmpty {
                result.rtcpSeen = true
            }
            var requestedAt: UInt64?
            if feedback.keyframeRequested && result.keyframeRoundTrip == nil { requestedAt = now }
            if pipeline.nextVideoDue <= now || requestedAt != nil {
                if let video = try? pipeline.encodeVideo(forceKeyframe: first || requestedAt != nil) {
                    connection.sendVideo(video)
                    if let requestedAt, video.isKeyframe {
                        result.keyframeRoundTrip = Double(Clocks.monotonic() - requestedAt) / 1e9
                    }
                    first = false
                }
            }
            if pipeline.nextAudioDue <= now, let audio = try? pipeline.encodeAudio() {
                connection.sendAudio(audio.packet, rtpTimestamp: audio.rtpTimestamp, mediaTime: audio.mediaTime)
            }
            connection.sendReportsIfDue(now: now, cname: "onair-doctor")
            if result.keyframeRoundTrip != nil && result.rtcpSeen { break }
            connection.sleep(mediaDue: pipeline.nextDue)
            connection.service(now: MonoTime.now())
        }
        return result
    }
}
