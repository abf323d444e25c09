import Foundation

extension BroadcastEngine {
    /// Prints the summary, writes `--stats-json`, and maps how the session ended to an exit code.
    func finish(_ end: SessionEnd) -> Int32 {
        status.finish()
        let code: Int32
        switch end {
        case .stopped, .durationReached, .endOfInput:
            code = 0
        case .connectionLost(let reason):
            Console.error("broadcast: the media connection was lost: \(reason)")
            code = BroadcastError.Code.connectionLost.rawValue
        case .failed(let reason):
            Console.error("broadcast: media pipeline failed: \(reason)")
            code = BroadcastError.Code.failure.rawValue
        }
        Console.info(summary(end))
        writeStatistics(exitReason: end.exitReason)
        return code
    }

    func summary(_ end: SessionEnd) -> String {
        let elapsed = duration
        let ended: String
        switch end {
        case .stopped: ended = "stopped"
        case .durationReached: ended = "duration reached"
        case .endOfInput: ended = "end of input"
        case .connectionLost(let reason): ended = "connection lost (\(reason))"
        case .failed(let reason): ended = "failed (\(reason))"
        }
        var lines = ["broadcast ended: \(ended) after \(StatusLine.clock(elapsed))"]
        let megabytes = Double(statistics.bytesSent) / 1e6
        let kilobits = elapsed > 0 ? Double(statistics.bytesSent) * 8 / 1000 / elapsed : 0
        lines.append(String(format: "  video: %llu frames (%.1f fps), %llu keyframes (%llu requested), %llu packets, %llu resent",
                            statistics.videoFrames, elapsed > 0 ? Double(statistics.videoFrames) / elapsed : 0,
                            statistics.keyframes, statistics.keyframeRequests, statistics.videoPackets,
                            statistics.retransmittedPackets))
        if statistics.retransmissionsDeclined > 0 {
            lines.append("  not resent: \(statistics.retransmissionsDeclined) NACKed packets over the retransmission budget "
                         + "(\(Int(PublishingConnection.retransmitShare * 100)) % of the bitrate)")
        }
        if statistics.droppedFrames > 0 {
            lines.append("  dropped: \(statistics.droppedFrames) frames before encoding (the uplink could not carry them in time)")
        }
        lines.append("  audio: \(statistics.audioFrames) Opus frames")
        lines.append(String(format: "  sent: %.2f MB, %.0f kbit/s average; final target %d kbit/s", megabytes, kilobits,
                            statistics.targetBitrate / 1000))
        if let p50 = statistics.captureToSend.quantile(0.5), let p99 = statistics.captureToSend.quantile(0.99) {
            lines.append(String(format: "  capture to first packet: p50 %.1f ms, p99 %.1f ms", p50, p99))
        }
        if let loss = statistics.lossFraction {
            lines.append(String(format: "  last receiver report: loss %.1f%%, jitter %.1f ms, rtt %@", loss * 100,
                                (statistics.jitter ?? 0) * 1000,
                                statistics.roundTripTime.map { String(format: "%.0f ms", $0 * 1000) } ?? "-"))
        }
        if statistics.reconnects > 0 { lines.append("  reconnects: \(statistics.reconnects)") }
        return lines.joined(separator: "\n")
    }

    var duration: Double {
        guard let started = statistics.startedAt else { return 0 }
        return Double(Clocks.monotonic() - started) / 1e9
    }

    /// `--stats-json`: the figures tests and scripts read.
    func writeStatistics(exitReason: String) {
        guard let path = settings.statsJSONPath else { return }
        var object: [String: Any] = [
            "video_frames": statistics.videoFrames, "audio_frames": statistics.audioFrames,
            "keyframes": statistics.keyframes, "video_packets": statistics.videoPackets,
            "audio_packets": statistics.audioPackets, "bytes_sent": statistics.bytesSent,
            "duration_s": duration, "retransmitted_packets": statistics.retransmittedPackets,
            "keyframe_requests": statistics.keyframeRequests, "reconnects": statistics.reconnects,
            "skipped_frames": statistics.skippedFrames, "dropped_frames": statistics.droppedFrames,
            "retransmissions_declined": statistics.retransmissionsDeclined, "exit_reason": exitReason,
            "target_bitrate": statistics.targetBitrate, "path": statistics.path ?? NSNull(),
        ]
        if let pipeline {
            object["width"] = pipeline.encoder.settings.width
            object["height"] = pipeline.encoder.settings.height
            object["fps"] = pipeline.framesPerSecond
        }
        if let p50 = statistics.captureToSend.quantile(0.5) { object["capture_to_send_p50_ms"] = p50 }
        if let p99 = statistics.captureToSend.quantile(0.99) { object["capture_to_send_p99_ms"] = p99 }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else { return }
        if !FileManager.default.createFile(atPath: path, contents: data) {
            Console.error("broadcast: cannot write --stats-json \(path)")
        }
    }
}
