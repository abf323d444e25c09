import OnAirForwarding
import Prometheus

/// Prometheus exposition of the relay's counters. The media path keeps plain integers (no
/// locks per packet); a scrape copies a snapshot into the registry and renders it.
final class RelayMetrics: Sendable {
    // A fresh registry per scrape: rooms come and go, and a room that ended must not keep
    // reporting its last values. Scrapes are rare (seconds apart), so building it is cheap.

    /// Renders the text format (version 0.0.4) for the given state; `workers`: each media
    /// worker's counters, in worker order (summed, the loads at their busiest, and per worker).
    func render(streams: [StreamSnapshot], workers: [EngineCounters], hls: HLSCounters? = nil) -> [UInt8] {
        let engine = EngineCounters(summing: workers)
        let registry = PrometheusCollectorRegistry()
        func counter(_ name: String, _ labels: [(String, String)], _ help: String, _ value: UInt64) {
            registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels).increment(by: Int64(clamping: value))
        }
        func gauge(_ name: String, _ help: String, _ value: Double, labels: [(String, String)] = []) {
            registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels).set(to: value)
        }
        for stream in streams {
            let labels = [("room", stream.room)]
            gauge("onair_stream_live", "1 while a publisher is connected", stream.live ? 1 : 0, labels: labels)
            gauge("onair_stream_viewers", "Connected WHEP viewers", Double(stream.viewers), labels: labels)
            counter("onair_stream_packets_in_total", labels, "RTP packets received from the publisher", stream.packetsIn)
            counter("onair_stream_bytes_in_total", labels, "RTP bytes received from the publisher", stream.bytesIn)
            counter("onair_stream_packets_out_total", labels, "RTP packets sent to viewers", stream.packetsOut)
            counter("onair_stream_bytes_out_total", labels, "RTP bytes sent to viewers", stream.bytesOut)
            counter("onair_stream_keyframes_total", labels, "Keyframes received from the publisher", stream.keyframes)
            counter("onair_stream_keyframe_requests_total", labels, "PLIs sent to the publisher after coalescing", stream.keyframeRequests)
            counter("onair_stream_retransmissions_total", labels, "Packets retransmitted for viewers' NACKs", stream.retransmissions)
            counter("onair_stream_layer_switches_up_total", labels, "Viewers switched to a bigger simulcast layer",
                    stream.layerSwitchesUp)
            counter("onair_stream_layer_switches_down_total", labels, "Viewers switched to a smaller layer or paused",
                    stream.layerSwitchesDown)
            counter("onair_stream_video_pauses_total", labels,
                    "Times a viewer's video was paused: its link did not carry the smallest layer for seconds", stream.videoPauses)
            for (reason, seconds) in stream.videoPausedSecondsByReason.sorted(by: { $0.key < $1.key }) {
                registry.makeCounter(descriptor: MetricNameDescriptor(
                    namespace: "onair", subsystem: "stream", metricName: "video_paused", unitName: "seconds_total",
                    helpText: "Seconds viewers' video was paused, by why: loss (reported above 10 %), undelivered "
                        + "(transport-cc acknowledged far less than sent), trial (a resume without a probe failed)"),
                    labels: labels + [("reason", reason)])
                    .increment(by: seconds)
            }
            gauge("onair_stream_loss_fraction", "Publisher packet loss fraction", stream.lossFraction, labels: labels)
            if let repair = stream.upstreamRepair {
                counter("onair_stream_upstream_nacks_total", labels, "Generic NACKs sent to the publisher", repair.nacksSent)
                counter("onair_stream_upstream_repaired_packets_total", labels, "Lost publisher packets repaired by NACK/RTX",
                        repair.packetsRepaired)
                counter("onair_stream_upstream_unrepaired_packets_total", labels,
                        "Lost publisher packets given up at their repair deadline", repair.packetsUnrepaired)
                counter("onair_stream_loss_keyframe_requests_total", labels,
                        "Keyframe requests because publisher loss could not be repaired in time", repair.keyframeRequests)
            }
        }
        gauge("onair_sessions", "WebRTC sessions (publishers + viewers)", Double(engine.sessions))
        for (index, worker) in workers.enumerated() {
            let labels = [("worker", String(index))]
            gauge("onair_worker_load", "Share of its core each media worker's loop was busy over the last second", worker.mediaLoad,
                  labels: labels)
            gauge("onair_worker_sessions", "WebRTC sessions on each media worker", Double(worker.sessions), labels: labels)
            gauge("onair_worker_replica_viewers", "Viewers on each media worker of streams published on another worker",
                  Double(worker.replicaViewers), labels: labels)
        }
        gauge("onair_media_loop_load", "Share of its core the busiest media worker's loop was busy over the last second",
              engine.mediaLoad)
        gauge("onair_media_fanout_load", "Share of the last second the media loop spent fanning packets out to viewers "
              + "(what admission charges per viewer)", engine.fanOutLoad)
        counter("onair_udp_datagrams_sent_total", [], "Datagrams handed to the kernel", engine.datagramsSent)
        counter("onair_udp_datagrams_dropped_total", [], "Datagrams the kernel would not take (shed load)", engine.datagramsDropped)
        counter("onair_udp_send_messages_total", [], "Messages given to sendmmsg: one per UDP GSO run of datagrams to one peer", engine.sendMessages)
        counter("onair_rtp_run_padded_packets_total", [], "RTP packets padded to the size of the one before them to stay in one GSO run",
                engine.paddedPackets)
        counter("onair_udp_gso_fallbacks_total", [], "GSO runs the kernel refused, sent one datagram at a time", engine.segmentationFallbacks)
        counter("onair_udp_datagrams_unroutable_total", [], "Datagrams matching no session", engine.unroutable)
        counter("onair_srtp_failures_total", [], "SRTP/SRTCP packets failing authentication or replay checks", engine.srtpFailures)
        counter("onair_worker_feed_dropped_total", [], "Packets a publisher's worker dropped for viewers on other workers because one fell behind",
                engine.feedDropped)
        gauge("onair_tcp_connections", "ICE-TCP connections open", Double(engine.tcpConnections))
        counter("onair_tcp_connections_accepted_total", [], "ICE-TCP connections accepted", engine.tcpAccepted)
        counter("onair_tcp_connections_refused_total", [], "ICE-TCP connections closed at once: the workers had their maximum",
                engine.tcpRefused)
        counter("onair_tcp_connections_unauthenticated_total", [("cause", "timeout")],
                "ICE-TCP connections closed before a STUN check passed", engine.tcpTimedOut)
        counter("onair_tcp_connections_unauthenticated_total", [("cause", "too_many_bytes")],
                "ICE-TCP connections closed before a STUN check passed", engine.tcpOverLimit)
        counter("onair_tcp_packets_dropped_total", [], "Packets dropped because a TCP connection's queue was at its hard limit",
                engine.tcpDropped)
        if let hls {
            gauge("onair_hls_waiting_requests", "Blocking playlist and hinted part requests held", Double(hls.waitingRequests))
            counter("onair_hls_recordings_started_total", [], "Stream recordings started", hls.recordingsStarted)
            counter("onair_hls_tap_dropped_total", [], "Packets the forwarding loops dropped for LL-HLS because packaging fell behind",
                    hls.tapDropped)
            counter("onair_hls_recording_fragments_dropped_total", [], "Fragments a recording dropped because the disk fell behind",
                    hls.recordingFragmentsDropped)
        }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        if let hls {
            // swift-prometheus histograms cannot be filled from counts kept elsewhere: written by hand.
            buffer += Array(hls.partReady.exposition(
                name: "onair_hls_part_ready_seconds",
                help: "From the datagram completing a part's last frame to the part being downloadable").utf8)
        }
        return buffer
    }

    /// A plain metric name (no namespace or unit parts: the names above are written whole).
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}

/// Relay-wide counters from the media plane.
public struct EngineCounters: Sendable, Codable {
    public var sessions: Int = 0
    public var datagramsSent: UInt64 = 0
    public var datagramsDropped: UInt64 = 0
    public var sendMessages: UInt64 = 0
    public var segmentationFallbacks: UInt64 = 0
    public var paddedPackets: UInt64 = 0
    /// Share of its core the media loop was busy over the last second.
    public var mediaLoad: Double = 0
    /// Share of the last second spent fanning packets out to viewers.
    public var fanOutLoad: Double = 0
    public var unroutable: UInt64 = 0
    public var srtpFailures: UInt64 = 0
    /// Records a publisher's worker could not hand to other workers (one fell behind).
    public var feedDropped: UInt64 = 0
    /// Viewers of streams published on another worker (fed through a stream feed).
    public var replicaViewers: Int = 0
    /// ICE-TCP connections open, accepted, refused over the cap, closed unauthenticated (at
    /// the connect timeout, or over the bytes allowed before a check), and packets dropped by
    /// TCP queues at their hard limit.
    public var tcpConnections: Int = 0
    public var tcpAccepted: UInt64 = 0
    public var tcpRefused: UInt64 = 0
    public var tcpTimedOut: UInt64 = 0
    public var tcpOverLimit: UInt64 = 0
    public var tcpDropped: UInt64 = 0
}

extension EngineCounters {
    /// Every worker's counters added up; the loads are the busiest worker's.
    init(summing workers: [EngineCounters]) {
        self.init()
        for worker in workers {
            sessions += worker.sessions
            datagramsSent += worker.datagramsSent
            datagramsDropped += worker.datagramsDropped
            sendMessages += worker.sendMessages
            segmentationFallbacks += worker.segmentationFallbacks
            paddedPackets += worker.paddedPackets
            mediaLoad = max(mediaLoad, worker.mediaLoad)
            fanOutLoad = max(fanOutLoad, worker.fanOutLoad)
            unroutable += worker.unroutable
            srtpFailures += worker.srtpFailures
            feedDropped += worker.feedDropped
            replicaViewers += worker.replicaViewers
            tcpConnections += worker.tcpConnections
            tcpAccepted += worker.tcpAccepted
            tcpRefused += worker.tcpRefused
            tcpTimedOut += worker.tcpTimedOut
            tcpOverLimit += worker.tcpOverLimit
            tcpDropped += worker.tcpDropped
        }
    }
}
