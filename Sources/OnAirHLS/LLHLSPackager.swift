/// Turns H.264 access units and AAC frames into an LL-HLS presentation (RFC 8216bis):
/// an fMP4 initialization segment, Partial Segments of about `partTarget`, Media
/// Segments cut at IDRs, and the playlists that list them.
///
/// Audio and video are muxed into one fMP4 stream (one track each in every fragment):
/// one media playlist means one blocking request per client instead of two, parts of both
/// tracks are published by the same event, and there are no rendition reports to keep in
/// step. Players (ffmpeg, hls.js, Safari, Chromium) all accept muxed fMP4.
///
/// Audio frames are placed by the video: a part takes the audio that starts before its
/// end. If video stops while audio goes on, audio-only parts keep the playlist moving
/// until the next IDR (`LLHLSPackager+VideoStall.swift`).
///
/// Sans-I/O: nothing here reads a clock. Time is the media time of the samples; the
/// wall clock enters only through ``anchorProgramDateTime(unixMilliseconds:mediaTimestamp:)``.
/// Inputs arrive in timestamp order per track; the relay serializes calls (one event loop).
public struct LLHLSPackager: Sendable {
    /// What an input changed, for the relay to wake waiting requests.
    public enum Event: Equatable, Sendable {
        /// A part became downloadable and the playlist lists it.
        case partPublished(number: Int, position: PartPosition)
        /// A Media Segment is complete and listed.
        case segmentCompleted(mediaSequence: Int)
        /// Ask the publisher for a keyframe (RTCP PLI, RFC 4585 §6.3.1): the segment has
        /// reached its target length without an IDR (repeated every further target
        /// length, in case a PLI is lost), or video stalled and only an IDR resumes it.
        case keyframeWanted
        /// ``finish()`` was called: the playlist has EXT-X-ENDLIST.
        case ended
    }

    public let configuration: LLHLSConfiguration
    public let tracks: HLSTrackConfiguration
    /// The EXT-X-MAP resource (ftyp + moov).
    public let initializationSegment: [UInt8]

    let leadTimescale: Int64
    let leadIsVideo: Bool
    let partTargetTicks: Int64
    /// The segment target in lead-track ticks: a segment ends at the first IDR this long after its start.
    public let segmentTargetTicks: Int64
    var store: SegmentStore
    var follower: FollowerQueue?
    var open: PartAssembler? = nil
    var originTimestamp: Int64? = nil
    /// The first IDR opened a segment.
    var hasStarted = false
    var lastLeadTicks: Int64? = nil
    var lastLeadInput: Int64? = nil
    var leadDelta: Int64
    var nextFragmentSequence: UInt32 = 1
    var keyframeRequests = 0
    var videoStalled = false
    var programDateTimeAnchor: (unixMilliseconds: Int64, mediaTimestamp: Int64)? = nil
    var peakBitrate = 0

    /// True once ``finish()`` ran.
    public private(set) var isFinished = false
    /// Increases whenever the playlist changes, so that the relay can cache rendered text.
    public internal(set) var revision: UInt64 = 0
    /// EXT-X-TARGETDURATION in seconds: the segment target rounded up, raised if a GOP
    /// made a longer segment (RFC 8216bis §4.4.3.1: every EXTINF rounded to the nearest
    /// integer is at most this).
    public internal(set) var targetDuration: Int
    /// Video access units dropped while waiting for an IDR: before the first one, and
    /// after video stalled (see `LLHLSPackager+VideoStall.swift`).
    public internal(set) var droppedWhileAwaitingKeyframe = 0

    public init(configuration: LLHLSConfiguration = LLHLSConfiguration(), tracks: HLSTrackConfiguration)
        throws(HLSPackagerError)
    {
        guard configuration.partTarget > .zero, configuration.partTarget <= configuration.segmentTarget else {
            throw .invalidConfiguration("partTarget must be positive and at most segmentTarget")
        }
        guard configuration.segmentTarget <= .seconds(60) else {
            throw .invalidConfiguration("segmentTarget above 60 s")
        }
        self.configuration = configuration
        self.tracks = tracks
        initializationSegment = tracks.initializationSegment().serialized()
        leadIsVideo = tracks.video != nil
        leadTimescale = leadIsVideo ? HLSTrackConfiguration.videoTimescale : Int64(tracks.audio!.sampleRate)
        partTargetTicks = MediaTime.ticks(configuration.partTarget, timescale: leadTimescale)
        segmentTargetTicks = MediaTime.ticks(configuration.segmentTarget, timescale: leadTimescale)
        // 30 frames/s until the first real interval is seen; audio frames are 1024 samples.
        leadDelta = leadIsVideo ? 3000 : HLSTrackConfiguration.aacFrameSamples
        store = SegmentStore(timescale: leadTimescale)
        let (seconds, attoseconds) = configuration.segmentTarget.components
        targetDuration = max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
        if leadIsVideo, let audio = tracks.audio {
            // Five seconds of frames: plenty for jitter between the tracks, bounded if video stalls.
            let capacity = audio.sampleRate * 5 / Int(HLSTrackConfiguration.aacFrameSamples)
            follower = FollowerQueue(trackID: tracks.audioTrackID, timescale: Int64(audio.sampleRate),
                                     frameDuration: HLSTrackConfiguration.aacFrameSamples, capacity: capacity)
        }
    }

    /// Adds an H.264 access unit. Before the first IDR, access units are dropped (nothing
    /// can be decoded without one). Ignored when the stream has no video track.
    public mutating func append(_ unit: VideoAccessUnit) throws(HLSPackagerError) -> [Event] {
        guard !isFinished else { throw .finished }
        guard leadIsVideo else { return [] }
        return try appendLead(unit.data, timestamp: unit.timestamp, isSync: unit.isKeyframe)
    }

    /// Adds an AAC frame. Ignored when the stream has no audio track.
    public mutating func append(_ frame: AudioFrame) throws(HLSPackagerError) -> [Event] {
        guard !isFinished else { throw .finished }
        guard leadIsVideo else { return try appendLead(frame.data, timestamp: frame.timestamp, isSync: true) }
        guard var queue = follower else { return [] }
        if let last = queue.lastTimestamp, frame.timestamp <= last {
            throw .timestampNotIncreasing(previous: last, received: frame.timestamp)
        }
        queue.push(frame)
        follower = queue
        var events: [Event] = []
        followAudioIfVideoStalled(events: &events)
        return events
    }

    /// Ends the stream: the open part and segment are published, the playlist gets
    /// EXT-X-ENDLIST and loses its preload hint (RFC 8216bis §6.2.1).
    public mutating func finish() -> [Event] {
        guard !isFinished else { return [] }
        var events: [Event] = []
        if videoStalled {
            publishAudioOnlyParts(before: .max, flushRemainder: true, events: &events)
        }
        closePart(takeAllFollowerFrames: true, events: &events)
        if let end = store.current?.endTicks { closeSegment(endTicks: end, events: &events) }
        follower?.discardAll()
        isFinished = true
        revision += 1
        events.append(.ended)
        return events
    }

    /// Ties media time to the wall clock for EXT-X-PROGRAM-DATE-TIME (RFC 8216bis
    /// §4.4.4.6): `mediaTimestamp` (on the lead track's input clock: 90 kHz video, or the
    /// audio rate without video) was captured at `unixMilliseconds`. The relay can take
    /// this pair from an RTCP Sender Report (RFC 3550 §6.4.1). Without it, the playlist
    /// has no dates.
    public mutating func anchorProgramDateTime(unixMilliseconds: Int64, mediaTimestamp: Int64) {
        programDateTimeAnchor = (unixMilliseconds, mediaTimestamp)
        revision += 1
    }

    /// Makes this packager one rendition of a presentation that others already started
    /// (RFC 8216bis §6.2.4: the same Media Sequence Number must name content starting at the
    /// same time in every rendition). Timestamps count from `originTimestamp`, the other
    /// renditions' origin, and the first IDR opens segment `mediaSequence`. Call it before
    /// the first IDR; afterwards it does nothing.
    public mutating func join(originTimestamp: Int64, mediaSequence: Int) {
        guard !hasStarted else { return }
        self.originTimestamp = originTimestamp
        store.numberNextSegment(mediaSequence)
    }

    /// The time the first segment starts, as an input timestamp, once the first IDR came.
    public var origin: Int64? { hasStarted ? originTimestamp : nil }

    /// The segment in progress: its Media Sequence Number and start (input timestamp).
    public var openSegmentStart: (mediaSequence: Int, timestamp: Int64)? {
        guard let current = store.current, let originTimestamp else { return nil }
        return (current.mediaSequence, current.startTicks + originTimestamp)
    }

    /// Lead-track samples waiting in the part being assembled (0 right after a part was
    /// published with the latest sample in it). Lets the relay tell which input completed
    /// a published part, to time how long publication took.
    public var openPartSampleCount: Int { open?.sampleCount ?? 0 }

    /// Audio frames dropped (with video): sent before the first IDR, overflowing the
    /// queue while video stalled, or left over at the end after the last part.
    public var droppedAudioFrames: Int { follower?.droppedFrames ?? 0 }
}
