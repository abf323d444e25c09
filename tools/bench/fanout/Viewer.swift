import OnAirForwarding
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// One WHEP viewer of the load: its socket, its transport session and its counters.
final class Viewer {
    enum Phase: Equatable {
        case signalling
        case connecting
        case connected
        /// Turned away at the door: 503, the relay's admission limit (`limits.max_media_load`).
        case refused
        case failed(String)
    }

    let index: Int
    let endpoint: UDPEndpoint
    let ufrag: String
    let password: String
    let rtcpSSRC: UInt32
    var phase: Phase = .signalling
    var session: ClientPeerSession?
    var audioPayloadType: UInt8 = 0xFF
    var videoPayloadType: UInt8 = 0xFF
    var audio = TrackCounter()
    var video = TrackCounter()
    /// Packets until the next one we decrypt for its stamp.
    var sampleCountdown: Int
    var nextReceiverReport: UInt64 = 0
    /// transport-cc (``recordTransportSequence(_:arrivalNanoseconds:)``): arrivals, the next
    /// feedback, and the video SSRC it names.
    var feedback = TransportFeedbackRecorder()
    var nextFeedback: UInt64 = 0
    var feedbackSSRC: UInt32 = 0
    /// Sampled packets that did not authenticate (or were replays), and ones that did but
    /// carried no stamp where expected.
    var decryptFailures: UInt64 = 0
    /// Of those, the replays (the session's count, and how many of them were seen here).
    var decryptReplays: UInt64 = 0
    var replaysSeen: UInt64 = 0
    var stampMissing: UInt64 = 0
    /// Its ICE-TCP connection (`--tcp`), opened by the first check to the relay's TCP candidate.
    var stream: TCPStream?

    init(index: Int, endpoint: UDPEndpoint, ufrag: String, password: String, rtcpSSRC: UInt32, sampleEvery: Int) {
        self.index = index
        self.endpoint = endpoint
        self.ufrag = ufrag
        self.password = password
        self.rtcpSSRC = rtcpSSRC
        // Spread the samples so viewers do not all decrypt the same publisher packet.
        self.sampleCountdown = 1 + index % max(1, sampleEvery)
    }

    /// Sends to the relay by the destination's transport: the UDP socket or the TCP connection.
    func send(_ bytes: UnsafeRawBufferPointer, to destination: TransportAddress) {
        guard destination.transport == .tcp else { return endpoint.send(bytes, to: destination) }
        if stream == nil { stream = try? TCPStream(remote: destination) }
        stream?.send(bytes)
    }

    func send(_ bytes: [UInt8], to destination: TransportAddress) {
        bytes.withUnsafeBytes { send($0, to: destination) }
    }

    var isConnected: Bool { phase == .connected }
    var isSettled: Bool {
        switch phase {
        case .connected, .refused, .failed: return true
        case .signalling, .connecting: return false
        }
    }

    struct Snapshot {
        var audio: TrackCounter.Snapshot
        var video: TrackCounter.Snapshot
    }

    var snapshot: Snapshot { Snapshot(audio: audio.snapshot, video: video.snapshot) }
}
