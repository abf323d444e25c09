import Foundation
import Logging
import NIOCore
import OnAirHLS
import OnAirPayload
import OnAirRTP
import OnAirTranscode
import OnAirWire

/// The LL-HLS side of one live stream: depacketizes the publisher's RTP into H.264 access
/// units, transcodes Opus to AAC, puts both on one timeline (``TrackTimeline``) and feeds
/// the packager; serves playlists and parts, holding blocking requests until they can be
/// answered. Confined to the media event loop.
final class HLSBranch {
    let room: String
    /// Names this stream's resources: a new publisher session gets new URLs, so parts and
    /// segments can be cached as immutable.
    let streamID: String
    let settings: HLSSettings
    let loop: EventLoop
    private let logger: Logger
    private let hasAudio: Bool
    private var video = TrackTimeline(clockRate: 90_000)
    private var audio = TrackTimeline(clockRate: 48_000)
    private var depacketizer = H264Depacketizer()
    private var opus = OpusDepacketizer()
    /// Units the depacketizer completed during one `receive`, handled after it returns:
    /// handling reads the depacketizer (its SPS/PPS), which must not overlap its mutation.
    private var completedUnits: [H264AccessUnit] = []
    private var transcoder: OpusToAACTranscoder?
    private(set) var packager: LLHLSPackager?
    private var firstPacketAt: MonoTime?
    private var timelineStarted = false
    private var waiters: [Waiter] = []
    var waiterCount: Int { waiters.count }
    func appendWaiter(_ waiter: Waiter) { waiters.append(waiter) }
    func takeWaiters() -> [Waiter] {
        defer { waiters.removeAll(keepingCapacity: true) }
        return waiters
    }
    /// The packager asked for an IDR (segment too long, or no keyframe to start from).
    var keyframeWanted = false
    /// When the branch last asked for a keyframe to start packaging from.
    private var lastStartRequest: MonoTime?
    private(set) var finished = false
    private(set) var errors = 0

    enum Target { case content, playlist(BlockingTarget), part(Int) }

    /// A held request: what it waits for, what it asked, and where its answer goes.
    struct Waiter {
        var target: Target
        var resource: HLSResource
        var request: PlaylistRequest
        var promise: EventLoopPromise<HLSReply>
        /// RFC 8216bis §6.2.5.2: held at most three target durations, then 503.
        var deadline: NIODeadline
    }

    /// Relay-wide figures (part-ready latency, recordings) this branch adds to.
    private let statistics: HLSStatistics
    /// Where recordings are written, when `settings.recordDirectory` asks for one.
    private let recordings: RecordingWriter?
    private(set) var recorder: StreamRecorder?
    /// Arrival of the datagram that completed the previous video access unit.
    private var previousUnitArrival: MonoTime?
    /// The rendered media playlist (full, and delta update) of one packager revision: many
    /// blocking requests released by the same part get the same text.
    private var renderedPlaylists: (revision: UInt64, full: ByteBuffer?, delta: ByteBuffer?) = (0, nil, nil)

    init(room: String, streamID: String, settings: HLSSettings, hasAudio: Bool, loop: EventLoop, logger: Logger,
         statistics: HLSStatistics = HLSStatistics(), recordings: RecordingWriter? = nil) {
        self.room = room
        self.streamID = streamID
        self.settings = settings
        self.hasAudio = hasAudio
        self.loop = loop
        self.logger = logger
        self.statistics = statistics
        self.recordings = recordings
        if hasAudio {
            do {
                transcoder = try OpusToAACTranscoder()
            } catch {
                logger.error("HLS audio disabled: \(error)", metadata: ["room": "\(room)"])
            }
        }
    }

    // MARK: input (per RTP packet)

    func receiveVideo(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        guard !finished else { return }
        if firstPacketAt == nil { firstPacketAt = now }
        let packet = RTPPayloadPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: Array(payload))
        depacketizer.receive(packet) { unit in self.completedUnits.append(unit) }
        guard !completedUnits.isEmpty else { return }
        for unit in completedUnits { handle(unit, now: now) }
        completedUnits.removeAll(keepingCapacity: true)
    }

    func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        guard !finished, transcoder != nil else { return }
        if firstPacketAt == nil { firstPacketAt = now }
        let packet = RTPPayloadPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: Array(payload))
        opus.receive(packet) { frame in self.handle(frame, now: now) }
    }

    /// RFC 3550 §6.4.1 sender report of the publisher's video or audio source.
    func senderReport(isVideo: Bool, ntp: NTPTime, rtpTimestamp: UInt32) {
        let seconds = Double(ntp.seconds) + Double(ntp.fraction) / 4_294_967_296
        if isVideo {
            video.noteSenderReport(ntpSeconds: seconds, rtpTimestamp: rtpTimestamp)
        } else {
            audio.noteSenderReport(ntpSeconds: seconds, rtpTimestamp: rtpTimestamp)
        }
    }

    /// The stream ended: EXT-X-ENDLIST, waiting requests released.
    func finish() {
        guard !finished else { return }
        finished = true
        if packager != nil {
            var events: [LLHLSPackager.Event] = []
            if let transcoder, let frames = try? transcoder.finish() {
                for frame in frames {
                    events += (try? packager!.append(AudioFrame(data: frame.bytes, timestamp: frame.pts))) ?? []
                }
            }
            events += packager!.finish()
            record(events)
        }
        recorder?.finish()
        wakeAll()
    }

    private func handle(_ unit: H264AccessUnit, now: MonoTime) {
        let unwrapped = video.unwrap(unit.timestamp, arrivalSeconds: now.seconds)
        guard startTimelineIfReady(now: now) else { return }
        if packager == nil {
            guard unit.isKeyframe, let sps = unit.sps ?? depacketizer.sps, let pps = unit.pps ?? depacketizer.pps else {
                // At most one request per segment target: a publisher whose keyframes carry no
                // SPS/PPS would otherwise get a PLI with every frame (coalesced to two a
                // second), and each forced IDR is a quality dip for every WebRTC viewer.
                if lastStartRequest.map({ now - $0 >= settings.segmentTarget }) ?? true {
                    lastStartRequest = now
                    keyframeWanted = true
                }
                return
            }
            createPackager(sps: sps, pps: pps)
        }
        let previousArrival = previousUnitArrival
        previousUnitArrival = now
        guard packager != nil, let pts = video.presentationTime(unwrapped), pts >= 0 else { return }
        do {
            // In place (`packager!`): a copy would duplicate the open part's buffers per frame.
            let events = try packager!.append(VideoAccessUnit(data: unit.avccSample, timestamp: pts, isKeyframe: unit.isKeyframe))
            if !events.isEmpty {
                // The last part published contains this unit unless the unit went into a new part.
                let containsThisUnit = packager!.openPartSampleCount == 0
                notePublished(events, completedAt: containsThisUnit ? now : (previousArrival ?? now),
                              closedBy: containsThisUnit ? "last_frame" : "next_frame")
            }
            apply(events)
        } catch {
            errors += 1
        }
    }

    private func handle(_ frame: OpusDepacketizer.Frame, now: MonoTime) {
        let unwrapped = audio.unwrap(frame.timestamp, arrivalSeconds: now.seconds)
        guard timelineStarted, packager != nil, let transcoder, let pts = audio.presentationTime(unwrapped), pts >= 0 else { return }
        do {
            for aac in try transcoder.transcode(opusPacket: Array(frame.packet), timestamp: pts) {
                let events = try packager!.append(AudioFrame(data: aac.bytes, timestamp: aac.pts))
                if !events.isEmpty { notePublished(events, completedAt: now, closedBy: "audio") }   // audio-only parts while video stalls
                apply(events)
            }
        } catch {
            errors += 1
        }
    }

    /// Fixes both tracks' timelines once sender reports for every track are in (exact A/V
    /// sync), or after two seconds without them (arrival-time sync).
    private func startTimelineIfReady(now: MonoTime) -> Bool {
        if timelineStarted { return true }
        let reports = video.senderReport != nil && (!hasAudio || transcoder == nil || audio.senderReport != nil)
        guard reports || (firstPacketAt.map { now - $0 >= .seconds(2) } ?? false) else { return false }
        let epoch = reports ? video.senderReport!.ntpSeconds : (video.firstArrival?.seconds ?? now.seconds)
        video.start(epochSeconds: epoch, useSenderReport: reports)
        audio.start(epochSeconds: epoch, useSenderReport: reports)
        timelineStarted = true
        logger.debug("HLS timeline started", metadata: ["room": "\(room)", "sync": "\(reports ? "sender_reports" : "arrival")"])
        return true
    }

    private func createPackager(sps: [UInt8], pps: [UInt8]) {
        do {
            let parsed = try H264SPS(nalUnit: sps)
            let record = try AVCDecoderConfigurationRecord(sps: sps, pps: pps)
            let videoEntry = try AVCSampleEntry(width: UInt16(parsed.width), height: UInt16(parsed.height),
                                                decoderConfiguration: record.serialize())
            let audioConfig = try transcoder.map { try AudioSpecificConfig(parsing: $0.audioSpecificConfig) }
            let tracks = try HLSTrackConfiguration(video: videoEntry, audio: audioConfig)
            var configuration = LLHLSConfiguration(partTarget: settings.partTarget, segmentTarget: settings.segmentTarget,
                                                   playlistWindow: settings.window)
            configuration.bandwidthEstimate = 2_500_000
            var packager = try LLHLSPackager(configuration: configuration, tracks: tracks)
            packager.anchorProgramDateTime(unixMilliseconds: Int64(Date().timeIntervalSince1970 * 1000), mediaTimestamp: 0)
            self.packager = packager
            logger.info("HLS packaging \(parsed.width)x\(parsed.height) \(tracks.codecs)", metadata: ["room": "\(room)"])
            if let directory = settings.recordDirectory, let recordings {
                recorder = StreamRecorder(directory: directory, room: room, startedAtUnixSeconds: Int(Date().timeIntervalSince1970),
                                          initializationSegment: packager.initializationSegment,
                                          videoTrackID: tracks.videoTrackID, queueLimit: settings.recordQueueBytes,
                                          writer: recordings, logger: logger)
                statistics.recordingsStarted += 1
            }
        } catch {
            errors += 1
            logger.error("HLS cannot package this stream: \(error)", metadata: ["room": "\(room)"])
        }
    }

    /// Times the publication of the parts in `events` (the part-ready histogram) and hands
    /// them to the recorder. `completedAt`: arrival of the datagram that completed the
    /// newest of them; `closedBy` says what closed it (trace log): its last frame, the next
    /// frame (that frame did not fit), or audio (while video stalls). The debug log line carries the
    /// wall-clock publication time, which tests and benchmarks compare response arrivals with.
    private func notePublished(_ events: [LLHLSPackager.Event], completedAt: MonoTime, closedBy: String) {
        let ready = MonoTime.now() - completedAt
        for case .partPublished(let number, _) in events {
            statistics.partReady.record(ready)
            if logger.logLevel <= .debug {
                logger.debug("HLS part published", metadata: [
                    "room": "\(room)", "part": "\(number)", "ready_us": "\(ready.seconds * 1e6)", "closed_by": "\(closedBy)",
                    "unix_us": "\(Int64(Date().timeIntervalSince1970 * 1e6))"])
            }
        }
        record(events)
    }

    private func record(_ events: [LLHLSPackager.Event]) {
        guard let recorder, let packager else { return }
        for case .partPublished(let number, _) in events {
            guard case .available(let part) = packager.part(number: number) else { continue }
            if !recorder.append(part) { statistics.recordingFragmentsDropped += 1 }
        }
    }

    /// The media playlist as bytes, rendered once per packager revision.
    func renderedMediaPlaylist(deltaUpdate: Bool) -> ByteBuffer {
        guard let packager else { return ByteBuffer() }
        if renderedPlaylists.revision != packager.revision { renderedPlaylists = (packager.revision, nil, nil) }
        if let cached = deltaUpdate ? renderedPlaylists.delta : renderedPlaylists.full { return cached }
        let bytes = ByteBuffer(string: packager.renderMediaPlaylist(deltaUpdate: deltaUpdate))
        if deltaUpdate { renderedPlaylists.delta = bytes } else { renderedPlaylists.full = bytes }
        return bytes
    }

    private func apply(_ events: [LLHLSPackager.Event]) {
        for event in events {
            switch event {
            case .keyframeWanted: keyframeWanted = true
            case .partPublished, .segmentCompleted, .ended: wakeSatisfied()
            }
        }
    }
}
