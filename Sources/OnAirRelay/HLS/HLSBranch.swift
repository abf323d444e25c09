import Foundation
import Logging
import NIOCore
import OnAirForwarding
import OnAirHLS
import OnAirPayload
import OnAirRTP
import OnAirTranscode
import OnAirWire

/// The LL-HLS side of one live stream: depacketizes each video layer the publisher sends
/// into H.264 access units (one ``HLSRendition`` per simulcast layer), transcodes Opus to AAC
/// once, puts everything on one timeline (``TrackTimeline``, from the sender reports) and
/// feeds one packager per rendition; serves playlists and parts, holding blocking requests
/// until they can be answered. Confined to the LL-HLS loop (``HLSService``), which takes its
/// media from the forwarding loop's ``MediaTapRing``.
///
/// Renditions are cut alike: every packager cuts segments and parts by the same rules from
/// the same origin, and a rendition that starts late joins at a segment boundary of the
/// others (``LLHLSPackager/join(originTimestamp:mediaSequence:)``). That needs the layers'
/// IDRs at the same capture times: our `broadcast` encodes them together, Chromium keys all
/// layers on one PLI, and the branch asks every layer for a keyframe at once.
final class HLSBranch: MediaTapConsumer {
    let room: String
    /// Names this stream's resources: a new publisher session gets new URLs, so parts and
    /// segments can be cached as immutable.
    let streamID: String
    let settings: HLSSettings
    let loop: EventLoop
    let logger: Logger
    private let hasAudio: Bool
    /// One per rid of a simulcast publisher (in its offer's order), else one.
    let renditions: [HLSRendition]
    /// The rendition of the publisher's primary (biggest) layer: listed first, recorded.
    private(set) var primary: HLSRendition?
    private var audio = TrackTimeline(clockRate: 48_000)
    private var opus = OpusDepacketizer()
    private var transcoder: OpusToAACTranscoder?
    private(set) var firstPacketAt: MonoTime?
    /// The timeline's zero: NTP seconds of a sender report, or an arrival time without them.
    private var epoch: (seconds: Double, fromSenderReports: Bool)?
    private var timelineStarted: Bool { epoch != nil }
    /// Unix milliseconds at media time 0 (EXT-X-PROGRAM-DATE-TIME), the same for every rendition.
    private var programDateTimeAnchor: Int64?
    /// The first rendition put on the timeline: the others take their offset from it.
    private var timelineReference: HLSRendition?
    private var waiters: [Waiter] = []
    var waiterCount: Int { waiters.count }
    func appendWaiter(_ waiter: Waiter) { waiters.append(waiter) }
    func takeWaiters() -> [Waiter] {
        defer { waiters.removeAll(keepingCapacity: true) }
        return waiters
    }
    /// A packager asked for an IDR (segment too long, or no keyframe to start from): the
    /// room asks every layer, which keeps the renditions' IDRs together.
    var keyframeWanted = false
    private(set) var finished = false
    private(set) var errors = 0

    enum Target { case content, playlist(BlockingTarget), part(Int) }

    /// A held request: what it waits for, what it asked, and where its answer goes.
    struct Waiter {
        var target: Target
        /// The rendition it asked, nil for the multivariant playlist.
        var rendition: HLSRendition?
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
    /// The rendition recorded (the biggest picture), and whether its first IDR part was written.
    private var recorded: (rendition: HLSRendition, started: Bool)?
    /// When the first packager was made: recording chooses its rendition a moment later,
    /// once every layer had the chance to show its size.
    private var firstPackagerAt: MonoTime?

    /// `rids`: the simulcast publisher's layers; empty for one rendition with the usual names.
    init(room: String, streamID: String, settings: HLSSettings, hasAudio: Bool, rids: [String] = [], loop: EventLoop,
         logger: Logger, statistics: HLSStatistics = HLSStatistics(), recordings: RecordingWriter? = nil) {
        self.room = room
        self.streamID = streamID
        self.settings = settings
        self.hasAudio = hasAudio
        self.loop = loop
        self.logger = logger
        self.statistics = statistics
        self.recordings = recordings
        let usable = rids.filter(HLSRendition.isUsable(rid:))
        renditions = usable.isEmpty ? [HLSRendition(rid: nil)] : usable.map { HLSRendition(rid: $0) }
        if hasAudio {
            do {
                transcoder = try OpusToAACTranscoder()
            } catch {
                logger.error("HLS audio disabled: \(error)", metadata: ["room": "\(room)"])
            }
        }
    }

    // MARK: input (per RTP packet)

    /// A packet of video layer `layer` (rid `rid`); `isPrimary` when it is the publisher's
    /// primary layer (a publisher without rids has only that one rendition).
    func receiveVideo(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                      payload: UnsafeRawBufferPointer, now: MonoTime) {
        guard !finished, let rendition = rendition(layer: layer, rid: rid, isPrimary: isPrimary) else { return }
        if isPrimary { primary = rendition }
        if firstPacketAt == nil { firstPacketAt = now }
        let packet = RTPPayloadPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: Array(payload))
        rendition.depacketizer.receive(packet) { unit in rendition.completedUnits.append(unit) }
        guard !rendition.completedUnits.isEmpty else { return }
        for unit in rendition.completedUnits { handle(unit, in: rendition, now: now) }
        rendition.completedUnits.removeAll(keepingCapacity: true)
    }

    /// A single-layer publisher's video (tests, and what ``receiveVideo(layer:rid:isPrimary:sequence:timestamp:marker:payload:now:)`` does for one).
    func receiveVideo(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        receiveVideo(layer: 0, rid: nil, isPrimary: true, sequence: sequence, timestamp: timestamp, marker: marker,
                     payload: payload, now: now)
    }

    func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        guard !finished, transcoder != nil else { return }
        if firstPacketAt == nil { firstPacketAt = now }
        let packet = RTPPayloadPacket(sequenceNumber: sequence, timestamp: timestamp, marker: marker, payload: Array(payload))
        opus.receive(packet) { frame in self.handle(frame, now: now) }
    }

    /// RFC 3550 §6.4.1 sender report of a video layer (`layer`, `rid`) or, with `layer` nil, of the audio.
    func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32) {
        let seconds = Double(ntp.seconds) + Double(ntp.fraction) / 4_294_967_296
        if let layer {
            rendition(layer: layer, rid: rid, isPrimary: isPrimary)?.timeline
                .noteSenderReport(ntpSeconds: seconds, rtpTimestamp: rtpTimestamp)
        } else {
            audio.noteSenderReport(ntpSeconds: seconds, rtpTimestamp: rtpTimestamp)
        }
    }

    /// The stream ended: EXT-X-ENDLIST, waiting requests released.
    func finish() {
        guard !finished else { return }
        finished = true
        let frames = (try? transcoder?.finish()) ?? []
        for rendition in renditions where rendition.packager != nil {
            var events: [LLHLSPackager.Event] = []
            for frame in frames {
                events += (try? rendition.packager!.append(AudioFrame(data: frame.bytes, timestamp: frame.pts))) ?? []
            }
            events += rendition.packager!.finish()
            record(events, of: rendition)
        }
        recorder?.finish()
        wakeAll()
    }

    /// The rendition a layer's packets feed, bound on its first packet.
    private func rendition(layer: Int, rid: String?, isPrimary: Bool) -> HLSRendition? {
        for rendition in renditions where rendition.layer == layer { return rendition }
        if let rid {
            guard let match = renditions.first(where: { $0.rid == rid }) else { return nil }
            match.layer = layer
            return match
        }
        // No rid: the single rendition follows the primary layer (a new SSRC replaces the old).
        guard isPrimary, let single = renditions.first, single.rid == nil else { return nil }
        single.layer = layer
        return single
    }

    private func handle(_ unit: H264AccessUnit, in rendition: HLSRendition, now: MonoTime) {
        let unwrapped = rendition.timeline.unwrap(unit.timestamp, arrivalSeconds: now.seconds)
        guard startTimelineIfReady(now: now), startTimeline(of: rendition),
              let pts = rendition.timeline.presentationTime(unwrapped) else { return }
        if rendition.packager == nil {
            guard unit.isKeyframe, pts >= 0, let sps = unit.sps ?? rendition.depacketizer.sps,
                  let pps = unit.pps ?? rendition.depacketizer.pps, let start = startingPoint(forKeyframeAt: pts) else {
                // At most one request per segment target: a publisher whose keyframes carry no
                // SPS/PPS would otherwise get a PLI with every frame (coalesced to two a
                // second), and each forced IDR is a quality dip for every WebRTC viewer.
                if rendition.lastStartRequest.map({ now - $0 >= settings.segmentTarget }) ?? true {
                    rendition.lastStartRequest = now
                    keyframeWanted = true
                }
                return
            }
            createPackager(for: rendition, sps: sps, pps: pps, joining: start, now: now)
        }
        let previousArrival = rendition.previousUnitArrival
        rendition.previousUnitArrival = now
        guard rendition.packager != nil, pts >= 0 else { return }
        do {
            // In place (`packager!`): a copy would duplicate the open part's buffers per frame.
            let events = try rendition.packager!.append(VideoAccessUnit(data: unit.avccSample, timestamp: pts,
                                                                       isKeyframe: unit.isKeyframe))
            if !events.isEmpty {
                // The last part published contains this unit unless the unit went into a new part.
                let containsThisUnit = rendition.packager!.openPartSampleCount == 0
                notePublished(events, of: rendition, completedAt: containsThisUnit ? now : (previousArrival ?? now),
                              closedBy: containsThisUnit ? "last_frame" : "next_frame")
            }
            apply(events)
        } catch {
            errors += 1
        }
    }

    private func handle(_ frame: OpusDepacketizer.Frame, now: MonoTime) {
        let unwrapped = audio.unwrap(frame.timestamp, arrivalSeconds: now.seconds)
        guard timelineStarted, let transcoder, let pts = audio.presentationTime(unwrapped), pts >= 0,
              renditions.contains(where: { $0.packager != nil }) else { return }
        do {
            for aac in try transcoder.transcode(opusPacket: Array(frame.packet), timestamp: pts) {
                for rendition in renditions where rendition.packager != nil {
                    let events = try rendition.packager!.append(AudioFrame(data: aac.bytes, timestamp: aac.pts))
                    // Audio-only parts while video stalls.
                    if !events.isEmpty { notePublished(events, of: rendition, completedAt: now, closedBy: "audio") }
                    apply(events)
                }
            }
        } catch {
            errors += 1
        }
    }

    /// Fixes the timeline's zero once sender reports of every arriving video layer and of the
    /// audio are in (exact A/V sync); after two seconds, with what reports there are (a layer
    /// without one starts once it has one), or by arrival time without any.
    private func startTimelineIfReady(now: MonoTime) -> Bool {
        if timelineStarted { return true }
        let videoReport = renditions.lazy.compactMap(\.timeline.senderReport).first
        let reports = videoReport != nil && (!hasAudio || transcoder == nil || audio.senderReport != nil)
        let waited = firstPacketAt.map { now - $0 >= .seconds(2) } ?? false
        // Every layer arriving has its report too: then all renditions start at the same IDR.
        let allReports = reports && renditions.allSatisfy { $0.layer == nil || $0.timeline.senderReport != nil }
        guard allReports || waited else { return false }
        let firstArrival = renditions.lazy.compactMap(\.timeline.firstArrival).map(\.seconds).min()
        let seconds = reports ? videoReport!.ntpSeconds : (firstArrival ?? now.seconds)
        epoch = (seconds, reports)
        audio.start(epochSeconds: seconds, useSenderReport: reports)
        programDateTimeAnchor = Int64(Date().timeIntervalSince1970 * 1000)
        logger.debug("HLS timeline started", metadata: ["room": "\(room)", "sync": "\(reports ? "sender_reports" : "arrival")",
                                                        "renditions": "\(renditions.count)"])
        return true
    }

    /// Puts a rendition on the started timeline: through its own sender reports when the
    /// timeline was built from them (it waits for its first), else by arrival.
    private func startTimeline(of rendition: HLSRendition) -> Bool {
        if rendition.timeline.base != nil { return true }
        guard let epoch else { return false }
        if epoch.fromSenderReports {
            guard rendition.timeline.senderReport != nil else { return false }
            if let reference = timelineReference, rendition.timeline.start(alignedWith: reference.timeline) { return true }
        }
        rendition.timeline.start(epochSeconds: epoch.seconds, useSenderReport: epoch.fromSenderReports)
        if timelineReference == nil { timelineReference = rendition }
        return rendition.timeline.base != nil
    }

    /// Where a rendition whose first usable IDR is at `pts` starts: the first one starts the
    /// presentation (segment 0); a later one joins the segment the others opened at the same
    /// time, or the next one if the others are about to cut there. Nil: not a boundary; wait.
    private func startingPoint(forKeyframeAt pts: Int64) -> RenditionStart? {
        // The primary rendition's packager if it started, else any that did.
        let candidates = ([primary].compactMap { $0 } + renditions).lazy.compactMap(\.packager)
        guard let reference = candidates.first(where: { $0.origin != nil }), let origin = reference.origin,
              let open = reference.openSegmentStart else {
            return .first
        }
        let tolerance: Int64 = 1500   // half a frame at 30 frames/s, 90 kHz
        if abs(pts - open.timestamp) <= tolerance { return .join(origin: origin, mediaSequence: open.mediaSequence) }
        if pts > open.timestamp, pts - open.timestamp >= reference.segmentTargetTicks - tolerance {
            return .join(origin: origin, mediaSequence: open.mediaSequence + 1)
        }
        logger.debug("HLS rendition waits for a segment boundary", metadata: [
            "room": "\(room)", "keyframe_pts": "\(pts)", "open_segment": "\(open.mediaSequence)", "open_pts": "\(open.timestamp)"])
        return nil
    }

    /// How a rendition's packager starts: the presentation's first, or joining the others.
    enum RenditionStart {
        case first
        case join(origin: Int64, mediaSequence: Int)
    }

    private func createPackager(for rendition: HLSRendition, sps: [UInt8], pps: [UInt8],
                                joining start: RenditionStart, now: MonoTime) {
        do {
            let parsed = try H264SPS(nalUnit: sps)
            let record = try AVCDecoderConfigurationRecord(sps: sps, pps: pps)
            let videoEntry = try AVCSampleEntry(width: UInt16(parsed.width), height: UInt16(parsed.height),
                                                decoderConfiguration: record.serialize())
            let audioConfig = try transcoder.map { try AudioSpecificConfig(parsing: $0.audioSpecificConfig) }
            let tracks = try HLSTrackConfiguration(video: videoEntry, audio: audioConfig)
            var configuration = LLHLSConfiguration(partTarget: settings.partTarget, segmentTarget: settings.segmentTarget,
                                                   playlistWindow: settings.window, names: rendition.names)
            configuration.bandwidthEstimate = 2_500_000 * parsed.width * parsed.height / (1280 * 720)
            var packager = try LLHLSPackager(configuration: configuration, tracks: tracks)
            var firstSegment = 0
            if case .join(let origin, let mediaSequence) = start {
                packager.join(originTimestamp: origin, mediaSequence: mediaSequence)
                firstSegment = mediaSequence
            }
            packager.anchorProgramDateTime(unixMilliseconds: programDateTimeAnchor ?? Int64(Date().timeIntervalSince1970 * 1000),
                                           mediaTimestamp: 0)
            rendition.packager = packager
            if firstPackagerAt == nil { firstPackagerAt = now }
            logger.info("HLS packaging \(parsed.width)x\(parsed.height) \(tracks.codecs)", metadata: [
                "room": "\(room)", "rendition": "\(rendition.rid ?? "-")", "first_segment": "\(firstSegment)"])
        } catch {
            errors += 1
            logger.error("HLS cannot package this stream: \(error)", metadata: ["room": "\(room)"])
        }
    }

    /// Starts recording the biggest rendition once every rendition has a packager, or two
    /// seconds after the first one had (a layer the publisher never sends must not block it).
    private func startRecordingIfDue(now: MonoTime) {
        guard recorded == nil, let directory = settings.recordDirectory, let recordings, let first = firstPackagerAt,
              renditions.allSatisfy({ $0.packager != nil }) || now - first >= .seconds(2),
              let best = renditions.filter({ $0.packager != nil }).max(by: { $0.pixels < $1.pixels }),
              let packager = best.packager else { return }
        recorded = (best, false)
        recorder = StreamRecorder(directory: directory, room: room, startedAtUnixSeconds: Int(Date().timeIntervalSince1970),
                                  initializationSegment: packager.initializationSegment,
                                  videoTrackID: packager.tracks.videoTrackID, queueLimit: settings.recordQueueBytes,
                                  writer: recordings, logger: logger)
        statistics.recordingsStarted += 1
    }

    /// Times the publication of the parts in `events` (the part-ready histogram) and hands
    /// them to the recorder. `completedAt`: arrival of the datagram that completed the
    /// newest of them; `closedBy` says what closed it (trace log): its last frame, the next
    /// frame (that frame did not fit), or audio (while video stalls). The debug log line carries the
    /// wall-clock publication time, which tests and benchmarks compare response arrivals with.
    private func notePublished(_ events: [LLHLSPackager.Event], of rendition: HLSRendition, completedAt: MonoTime,
                               closedBy: String) {
        let ready = MonoTime.now() - completedAt
        for case .partPublished(let number, _) in events {
            statistics.partReady.record(ready)
            if logger.logLevel <= .debug {
                logger.debug("HLS part published", metadata: [
                    "room": "\(room)", "rendition": "\(rendition.rid ?? "-")", "part": "\(number)",
                    "ready_us": "\(ready.seconds * 1e6)", "closed_by": "\(closedBy)",
                    "unix_us": "\(Int64(Date().timeIntervalSince1970 * 1e6))"])
            }
        }
        startRecordingIfDue(now: completedAt)
        record(events, of: rendition)
    }

    /// Hands the recorded rendition's parts to the recorder, from its first part that starts with an IDR.
    private func record(_ events: [LLHLSPackager.Event], of rendition: HLSRendition) {
        guard let recorder, let recorded, recorded.rendition === rendition, let packager = rendition.packager else { return }
        for case .partPublished(let number, _) in events {
            guard case .available(let part) = packager.part(number: number) else { continue }
            if !self.recorded!.started {
                guard part.isIndependent, part.leadSampleCount > 0 else { continue }
                self.recorded!.started = true
            }
            if !recorder.append(part) { statistics.recordingFragmentsDropped += 1 }
        }
    }

    /// Changes whenever any rendition's playlist changes (each lists the others' progress).
    var presentationRevision: UInt64 {
        renditions.reduce(0) { $0 &+ ($1.packager?.revision ?? 0) }
    }

    /// A rendition's media playlist as bytes, with reports of the other renditions
    /// (RFC 8216bis §4.4.5.4), rendered once per presentation revision.
    func renderedMediaPlaylist(of rendition: HLSRendition, deltaUpdate: Bool) -> ByteBuffer {
        guard let packager = rendition.packager else { return ByteBuffer() }
        let revision = presentationRevision
        if rendition.renderedPlaylists.revision != revision { rendition.renderedPlaylists = (revision, nil, nil) }
        if let cached = deltaUpdate ? rendition.renderedPlaylists.delta : rendition.renderedPlaylists.full { return cached }
        let reports = renditions.compactMap { other -> RenditionReport? in
            guard other !== rendition, let progress = other.packager?.progress else { return nil }
            return RenditionReport(uri: other.names.mediaPlaylist, progress: progress)
        }
        let bytes = ByteBuffer(string: packager.renderMediaPlaylist(deltaUpdate: deltaUpdate, renditionReports: reports))
        if deltaUpdate { rendition.renderedPlaylists.delta = bytes } else { rendition.renderedPlaylists.full = bytes }
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
