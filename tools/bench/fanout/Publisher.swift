import BenchSupport
import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// The WHIP publisher: sends an H.264-like video stream (FU-A fragments, IDR every GOP) and
/// Opus-like audio (50 packets/s of ~120 bytes) over one ClientPeerSession, every packet
/// stamped (``MediaStamp``). Honours PLI/FIR like an encoder would, at most once a second.
final class Publisher {
    let endpoint: UDPEndpoint
    let session: ClientPeerSession
    let videoPayloadType: UInt8
    let audioPayloadType: UInt8
    let videoSSRC: UInt32
    let audioSSRC: UInt32
    let model: VideoModel
    let audioPayloadBytes = 120

    private(set) var videoPackets: UInt64 = 0
    private(set) var audioPackets: UInt64 = 0
    private(set) var keyframes: UInt64 = 0
    private(set) var keyframeRequests: UInt64 = 0
    private var frameIndex = 0
    private var videoSequence = UInt16.random(in: 0...UInt16.max)
    private var audioSequence = UInt16.random(in: 0...UInt16.max)
    private let videoTimestampBase = UInt32.random(in: 0...UInt32.max)
    private let audioTimestampBase = UInt32.random(in: 0...UInt32.max)
    private var audioIndex: UInt32 = 0
    private var nextVideoAt: UInt64 = .max
    private var nextAudioAt: UInt64 = .max
    private var nextReportAt: UInt64 = .max
    private var forceKeyframe = false
    private var lastForcedKeyframe: UInt64 = 0
    private var octets: (video: UInt32, audio: UInt32) = (0, 0)
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1536, alignment: 16)
    private let frameInterval: UInt64
    private let audioInterval: UInt64 = 20_000_000

    init(endpoint: UDPEndpoint, session: ClientPeerSession, videoPayloadType: UInt8, audioPayloadType: UInt8,
         videoSSRC: UInt32, audioSSRC: UInt32, model: VideoModel) {
        self.endpoint = endpoint
        self.session = session
        self.videoPayloadType = videoPayloadType
        self.audioPayloadType = audioPayloadType
        self.videoSSRC = videoSSRC
        self.audioSSRC = audioSSRC
        self.model = model
        self.frameInterval = 1_000_000_000 / UInt64(model.framesPerSecond)
        buffer.initializeMemory(as: UInt8.self, repeating: 0xA5)
    }

    deinit { buffer.deallocate() }

    var isStarted: Bool { nextVideoAt != .max }

    /// Starts media at `now` (monotonic ns) with a keyframe.
    func start(now: UInt64) {
        nextVideoAt = now
        nextAudioAt = now
        nextReportAt = now + 1_000_000_000
    }

    /// Why the relay or we ended the publishing session, once it ended.
    var closeReason: String?

    /// When ``sendDue(now:)`` next has something to send (never, while it cannot send).
    var nextDue: UInt64 { session.canSendMedia ? min(nextVideoAt, nextAudioAt, nextReportAt) : .max }

    /// Sends every frame and audio packet whose time has come. After a stall of more than a
    /// second the schedule restarts instead of bursting the backlog (an encoder drops frames).
    func sendDue(now: UInt64) {
        guard session.canSendMedia, isStarted else { return }
        if now > nextVideoAt + 1_000_000_000 { nextVideoAt = now }
        if now > nextAudioAt + 1_000_000_000 { nextAudioAt = now }
        while nextVideoAt <= now {
            sendFrame()
            nextVideoAt += frameInterval
        }
        while nextAudioAt <= now {
            sendAudio()
            nextAudioAt += audioInterval
        }
        if nextReportAt <= now {
            sendSenderReports()
            nextReportAt = now + 1_000_000_000
        }
    }

    /// RFC 4585 §6.3.1 PLI / RFC 5104 §4.3.1 FIR in RTCP from the relay: next frame is an IDR.
    func handleRTCP(_ packet: [UInt8]) {
        guard let packets = try? RTCPPacket.parseCompound(packet) else { return }
        for item in packets {
            switch item {
            case .pictureLossIndication, .fullIntraRequest:
                keyframeRequests += 1
                let now = BenchClock.monotonic()
                if now - lastForcedKeyframe >= 1_000_000_000 {
                    lastForcedKeyframe = now
                    forceKeyframe = true
                }
            default:
                break
            }
        }
    }

    private func sendFrame() {
        let keyframe = frameIndex % model.gop == 0 || forceKeyframe
        if keyframe {
            forceKeyframe = false
            keyframes += 1
        }
        let timestamp = videoTimestampBase &+ UInt32(truncatingIfNeeded: frameIndex &* (90_000 / model.framesPerSecond))
        let fragments = model.fragments(ofFrameBytes: model.frameBytes(keyframe: keyframe))
        let nalType: UInt8 = keyframe ? 5 : 1
        for (index, size) in fragments.enumerated() {
            // RFC 6184 §5.8 FU-A: indicator (F=0, NRI, type 28), header (S, E, R=0, NAL type).
            buffer[12] = (keyframe ? 0x60 : 0x40) | 28
            buffer[13] = (index == 0 ? 0x80 : 0) | (index == fragments.count - 1 ? 0x40 : 0) | nalType
            let stamp = MediaStamp(counter: videoPackets, monotonicNanoseconds: BenchClock.monotonic(), realtimeNanoseconds: BenchClock.realtime())
            stamp.write(into: buffer, at: 12 + MediaStamp.videoOffset)
            let payload = 2 + max(size, MediaStamp.length)
            send(payloadType: videoPayloadType, marker: index == fragments.count - 1, sequence: videoSequence,
                 timestamp: timestamp, ssrc: videoSSRC, payloadLength: payload)
            videoSequence &+= 1
            videoPackets += 1
            octets.video &+= UInt32(payload)
        }
        frameIndex += 1
    }

    private func sendAudio() {
        let stamp = MediaStamp(counter: audioPackets, monotonicNanoseconds: BenchClock.monotonic(), realtimeNanoseconds: BenchClock.realtime())
        stamp.write(into: buffer, at: 12 + MediaStamp.audioOffset)
        send(payloadType: audioPayloadType, marker: false, sequence: audioSequence,
             timestamp: audioTimestampBase &+ audioIndex &* 960, ssrc: audioSSRC, payloadLength: audioPayloadBytes)
        audioSequence &+= 1
        audioIndex &+= 1
        audioPackets += 1
        octets.audio &+= UInt32(audioPayloadBytes)
    }

    /// RFC 3550 §5.1 fixed header, then protect in place and send.
    @inline(__always)
    private func send(payloadType: UInt8, marker: Bool, sequence: UInt16, timestamp: UInt32, ssrc: UInt32, payloadLength: Int) {
        buffer[0] = 0x80
        buffer[1] = (marker ? 0x80 : 0) | payloadType
        buffer.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        guard let destination = session.remoteAddress,
              let length = session.protectRTP(buffer: buffer, length: 12 + payloadLength) else { return }
        endpoint.send(UnsafeRawBufferPointer(rebasing: buffer[0..<length]), to: destination)
    }

    /// RFC 3550 §6.4.1 SR + SDES CNAME for each stream, once a second (one compound packet
    /// per SSRC, as browsers send them).
    private func sendSenderReports() {
        let ntp = NTPTime(unixNanoseconds: BenchClock.realtime())
        let videoTimestamp = videoTimestampBase &+ UInt32(truncatingIfNeeded: frameIndex &* (90_000 / model.framesPerSecond))
        let reports = [
            SenderReport(ssrc: videoSSRC, ntpTime: ntp, rtpTimestamp: videoTimestamp,
                         packetCount: UInt32(truncatingIfNeeded: videoPackets), octetCount: octets.video),
            SenderReport(ssrc: audioSSRC, ntpTime: ntp, rtpTimestamp: audioTimestampBase &+ audioIndex &* 960,
                         packetCount: UInt32(truncatingIfNeeded: audioPackets), octetCount: octets.audio),
        ]
        guard let destination = session.remoteAddress else { return }
        for report in reports {
            let compound = RTCPCompoundBuilder.serialize([
                .senderReport(report), .sourceDescription(SourceDescription(ssrc: report.ssrc, cname: "fanout-bench")),
            ])
            if let protected = session.protectRTCP(compound) { endpoint.send(protected, to: destination) }
        }
    }
}
