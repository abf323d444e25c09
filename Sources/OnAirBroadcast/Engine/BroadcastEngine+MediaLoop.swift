import OnAirWire

extension BroadcastEngine {
    /// The media thread: waits for ICE + DTLS, then sends each frame and each 20 ms of audio when
    /// due, serves the socket (STUN consent, DTLS, RTCP) in between, and returns when the session
    /// ends. poll(2) sleeps until the next deadline, so an idle broadcast costs nothing.
    func mediaLoop(_ connection: PublishingConnection) -> SessionEnd {
        let connectDeadline = Clocks.monotonic() + 15_000_000_000
        while !connection.isConnected {
            if stop.isRequested { return .stopped(stop.reason) }
            if connection.isClosed { return .connectionLost(connection.closeReason.map { "\($0)" } ?? "closed") }
            if Clocks.monotonic() > connectDeadline {
                return .connectionLost("no ICE/DTLS connection within 15 s (is UDP to the relay blocked?)")
            }
            connection.socket.wait(timeoutMilliseconds: waitTime(connection, mediaDue: .max))
            connection.service(now: MonoTime.now())
        }
        let now = Clocks.monotonic()
        pipeline.start(now: now)
        if statistics.startedAt == nil { statistics.startedAt = now }
        var forceKeyframe = true  // every new session starts with an IDR
        var lastBytes = connection.bytesSent
        var lastRetransmitted: UInt64 = 0

        while true {
            let now = Clocks.monotonic()
            if stop.isRequested { return .stopped(stop.reason) }
            if let deadline, now >= deadline { return .durationReached }
            if connection.isClosed { return .connectionLost(connection.closeReason.map { "\($0)" } ?? "closed") }
            // Consent answers come every ~2 s and RTCP every second: silence this long means the
            // endpoint is gone (crashed, restarted, path down). RFC 7675 would keep sending for 30 s.
            if MonoTime.now() - connection.lastHeard > .seconds(settings.silenceTimeout) {
                return .connectionLost("nothing heard from the endpoint for \(Int(settings.silenceTimeout)) s")
            }
            pipeline.skipBacklog(now: now)
            do {
                if pipeline.nextVideoDue <= now {
                    if try sendVideo(connection, forceKeyframe: forceKeyframe) { forceKeyframe = false }
                    if pipeline.isFinished { return .endOfInput }
                }
                if pipeline.nextAudioDue <= now, let audio = try pipeline.encodeAudio() {
                    connection.sendAudio(audio.packet, rtpTimestamp: audio.rtpTimestamp, mediaTime: audio.mediaTime)
                    statistics.audioFrames += 1
                    statistics.audioPackets += 1
                }
            } catch {
                return .failed("\(error)")
            }
            connection.pacingBitrate = pipeline.encoder.settings.bitrate
            connection.releasePaced(now: Clocks.monotonic())
            connection.sendReportsIfDue(now: now, cname: cname)
            if applyFeedback(connection, now: now) || pendingKeyframeDue(now: now) { forceKeyframe = true }
            statistics.bytesSent += connection.bytesSent - lastBytes
            lastBytes = connection.bytesSent
            statistics.retransmittedPackets += connection.video.retransmitted - lastRetransmitted
            lastRetransmitted = connection.video.retransmitted
            statistics.skippedFrames = pipeline.skippedFrames
            status.tick(statistics, now: now)
            connection.socket.wait(timeoutMilliseconds: waitTime(connection, mediaDue: pipeline.nextDue))
            connection.service(now: MonoTime.now())
        }
    }

    /// Encodes and sends the due frame; true when it was sent.
    private func sendVideo(_ connection: PublishingConnection, forceKeyframe: Bool) throws -> Bool {
        guard let video = try pipeline.encodeVideo(forceKeyframe: forceKeyframe) else { return false }
        let packetsBefore = connection.video.packetsSent
        connection.sendVideo(video.frame, rtpTimestamp: video.rtpTimestamp, mediaTime: video.mediaTime)
        statistics.videoPackets += connection.video.packetsSent - packetsBefore
        statistics.videoFrames += 1
        if video.frame.isKeyframe { statistics.keyframes += 1 }
        statistics.captureToSend.record(nanoseconds: Clocks.monotonic() - video.capturedAt)
        return true
    }

    /// Milliseconds to sleep: until the next media deadline, paced packet or session timer, at
    /// most 20 ms. Rounded up: waking a little late costs nothing, waking early would spin.
    private func waitTime(_ connection: PublishingConnection, mediaDue: UInt64) -> Int32 {
        let now = Clocks.monotonic()
        var until = min(mediaDue, now + 20_000_000)
        if let paced = connection.nextPacedRelease { until = min(until, paced) }
        if let timer = connection.session.nextTimeout?.nanoseconds { until = min(until, timer) }
        guard until > now else { return 0 }
        return Int32((until - now + 999_999) / 1_000_000)
    }
}
