import OnAirWire

extension BroadcastEngine {
    /// The media thread: waits for ICE + DTLS, then sends each frame and each 20 ms of audio when
    /// due, serves the socket (STUN consent, DTLS, RTCP) in between, and returns when the session
    /// ends. poll(2) sleeps until the next deadline, so an idle broadcast costs nothing.
    func mediaLoop(_ connection: PublishingConnection) -> SessionEnd {
        switch connection.awaitConnected(timeout: 15_000_000_000, stopRequested: { stop.isRequested }) {
        case .connected: break
        case .stopped: return .stopped(stop.reason)
        case .closed(let reason): return .connectionLost(reason)
        case .timedOut: return .connectionLost("no ICE/DTLS connection within 15 s (is UDP to the relay blocked?)")
        }
        let now = Clocks.monotonic()
        pipeline.start(now: now)
        if statistics.startedAt == nil { statistics.startedAt = now }
        var forceKeyframe = true  // every new session starts with an IDR
        var lastBytes = connection.bytesSent
        var lastRetransmitted: UInt64 = 0
        let declinedBefore = statistics.retransmissionsDeclined  // earlier sessions of this broadcast

        while true {
            let now = Clocks.monotonic()
            if stop.isRequested { return .stopped(stop.reason) }
            if let deadline, now >= deadline { return .durationReached }
            if connection.isClosed { return .connectionLost(connection.closeDescription) }
            // Consent answers come every ~2 s and RTCP every second: silence this long means the
            // endpoint is gone (crashed, restarted, path down). RFC 7675 would keep sending for 30 s.
            if MonoTime.now() - connection.lastHeard > .seconds(settings.silenceTimeout) {
                return .connectionLost("nothing heard from the endpoint for \(Int(settings.silenceTimeout)) s")
            }
            pipeline.skipBacklog(now: now)
            do {
                if pipeline.nextVideoDue <= now {
                    if !forceKeyframe && !pipeline.keyframeDue && connection.pacerDelay(now: now) > frameDropDelay {
                        // The uplink is behind: this frame would leave late; skip it before x264.
                        pipeline.dropVideoFrame()
                        statistics.droppedFrames += 1
                    } else if try sendVideo(connection, forceKeyframe: forceKeyframe) {
                        forceKeyframe = false
                    }
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
            connection.pacingBitrate = pipeline.videoBitrate
            connection.releasePaced(now: Clocks.monotonic())
            connection.sendReportsIfDue(now: now, cname: cname)
            if applyFeedback(connection, now: now) || pendingKeyframeDue(now: now) { forceKeyframe = true }
            statistics.bytesSent += connection.bytesSent - lastBytes
            lastBytes = connection.bytesSent
            statistics.retransmittedPackets += connection.videoRetransmitted - lastRetransmitted
            lastRetransmitted = connection.videoRetransmitted
            statistics.retransmissionsDeclined = declinedBefore + connection.retransmissionsDeclined
            statistics.skippedFrames = pipeline.skippedFrames
            statistics.path = connection.session.remoteAddress.map(connection.socket.pathName(to:))
            status.tick(statistics, now: now)
            connection.sleep(mediaDue: pipeline.nextDue)
            connection.service(now: MonoTime.now())
        }
    }

    /// Pacer backlog beyond which the next frame is dropped at the encoder input: two frame
    /// intervals (a frame sent later than that is worth less than the bits it takes).
    var frameDropDelay: UInt64 { 2_000_000_000 / UInt64(max(1, pipeline.framesPerSecond)) }

    /// Encodes and sends the due frame; true when it was sent.
    private func sendVideo(_ connection: PublishingConnection, forceKeyframe: Bool) throws -> Bool {
        guard let video = try pipeline.encodeVideo(forceKeyframe: forceKeyframe) else { return false }
        let packetsBefore = connection.videoPacketsSent
        connection.sendVideo(video)
        statistics.videoPackets += connection.videoPacketsSent - packetsBefore
        statistics.videoFrames += 1
        if video.isKeyframe { statistics.keyframes += 1 }
        statistics.captureToSend.record(nanoseconds: Clocks.monotonic() - video.capturedAt)
        return true
    }
}
