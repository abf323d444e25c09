import OnAirMedia
import OnAirRateControl

/// Source → encoders on the output clock: video frame `n` is due at `origin + n / fps`, audio
/// frame `k` at `origin + k × 20 ms`; their RTP timestamps are those instants on the 90 kHz and
/// 48 kHz clocks (RFC 6184 §5.1, RFC 7587 §4.1), so audio and video share one timeline and the
/// sender reports map both onto the same wall clock. Survives reconnects (the encoder and the
/// timeline carry on; the next frame is an IDR).
final class MediaPipeline {
    let source: BroadcastSource
    /// The video encodings, best first: one without simulcast.
    let layers: [EncodingLayer]
    /// Shares the video bitrate among the layers (all of it to the one layer without simulcast).
    private(set) var allocator: SimulcastAllocator
    let opus: OpusAudioEncoder?
    let framesPerSecond: Int
    private(set) var videoTick: Int64 = 0
    private(set) var audioIndex: Int64 = 0
    private var origin: UInt64 = 0
    /// `origin` on the wall clock in 48 kHz samples: audio frame k is at this + k × 960, exactly,
    /// so the tone stays phase-continuous and its beeps land on wall-clock seconds.
    private var wallSampleOrigin: Int64 = 0
    private var started = false
    private let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: OpusAudioEncoder.frameSamples * 2)
    /// Output frames skipped because the loop fell behind (the machine stalled).
    private(set) var skippedFrames: UInt64 = 0
    /// The output tick of the last IDR: the GOP is kept in time, not in encoded frames, so that
    /// dropped frames do not stretch it (x264's keyint counts frames it saw; receivers such as
    /// the relay's LL-HLS segmenter ask for an IDR once a GOP runs past its time).
    private var lastKeyframeTick: Int64 = 0

    /// A layer resumed since the last frame: the next frame is an IDR in every layer.
    private var layerResumed = false
    /// Indices into ``layers`` of those the answer accepted (all until told), best first.
    private(set) var acceptedLayers: [Int]

    init(source: BroadcastSource, layers: [EncodingLayer], allocator: SimulcastAllocator, opus: OpusAudioEncoder?,
         framesPerSecond: Int) {
        precondition(!layers.isEmpty && layers.count == allocator.layerCount)
        self.source = source
        self.layers = layers
        self.allocator = allocator
        acceptedLayers = Array(layers.indices)
        self.opus = opus
        self.framesPerSecond = framesPerSecond
    }

    /// The top layer's encoder (its size and level describe the broadcast).
    var encoder: H264Encoder { layers[0].encoder }
    var isSimulcast: Bool { layers.count > 1 }

    /// Shares `bitrate` (video, bit/s) among the accepted layers.
    func setVideoBitrate(_ bitrate: Int) {
        let shares = allocator.allocate(total: bitrate)
        for (index, share) in zip(acceptedLayers, shares) where layers[index].setBitrate(share) { layerResumed = true }
    }

    /// The video bitrate the layers use now.
    var videoBitrate: Int { layers.filter(\.isActive).reduce(0) { $0 + $1.bitrate } }

    /// "f h q" (the layers sending now), for the status line.
    var activeLayerNames: String { layers.filter(\.isActive).map(\.rid).joined(separator: " ") }

    /// Only the layers the WHIP answer accepted are encoded (all of them without simulcast).
    /// The allocator then shares the bitrate among those alone, the best of them on top (a
    /// server that takes no simulcast gets the full picture at the whole bitrate).
    func accept(rids: [String]) {
        for (index, layer) in layers.enumerated() {
            layer.accepted = rids.isEmpty ? index == 0 : rids.contains(layer.rid)
            if !layer.accepted { _ = layer.setBitrate(0) }
        }
        acceptedLayers = layers.indices.filter { layers[$0].accepted }
        let lower = acceptedLayers.dropFirst().map { layers[$0].nominalBitrate }
        allocator = SimulcastAllocator(lowerBitrates: lower, topMinimum: lower.first ?? 0, topMaximum: allocator.topMaximum)
        layerResumed = true
    }

    deinit { pcm.deallocate() }

    var isStarted: Bool { started }

    func start(now: UInt64) {
        guard !started else { return }
        origin = now
        wallSampleOrigin = Int64(Clocks.realtime() / 1_000_000) * 48 - Int64((Clocks.monotonic() - now) / 20_833)
        started = true
    }

    var nextVideoDue: UInt64 { origin + UInt64(videoTick) * 1_000_000_000 / UInt64(framesPerSecond) }
    var nextAudioDue: UInt64 { opus == nil ? .max : origin + UInt64(audioIndex) * 20_000_000 }
    var nextDue: UInt64 { started ? min(nextVideoDue, nextAudioDue) : .max }
    var isFinished: Bool { source.isFinished }

    /// After a stall of more than half a second, jump the clocks to `now` instead of bursting
    /// the backlog (a live encoder drops frames; the receiver's jitter buffer would drop them anyway).
    func skipBacklog(now: UInt64) {
        let limit: UInt64 = 500_000_000
        while nextVideoDue + limit < now {
            videoTick += 1
            skippedFrames += 1
        }
        while opus != nil, nextAudioDue + limit < now { audioIndex += 1 }
    }

    /// Whether the due frame must be an IDR to keep the GOP's length in time.
    var keyframeDue: Bool { videoTick - lastKeyframeTick >= Int64(encoder.settings.gop) }

    /// Lets the due video frame go unencoded (the uplink is behind); x264 sees a gap in pts.
    func dropVideoFrame() {
        videoTick += 1
    }

    /// Encodes the due video frame in every active layer. Returns nil when the source has no
    /// picture for it.
    func encodeVideo(forceKeyframe: Bool) throws -> EncodedPicture? {
        let tick = videoTick
        let due = nextVideoDue
        videoTick += 1
        let timestamp = tick * 90_000 / Int64(framesPerSecond)
        let wallClock = Clocks.realtime() / 1_000_000
        guard let picture = try source.picture(forTick: tick, timestamp90kHz: timestamp, wallClockMilliseconds: wallClock) else {
            return nil
        }
        picture.timestamp90kHz = timestamp
        // Capture = the picture exists (drawn, or decoded and scaled): from here on it is ours.
        picture.capturedAt = Clocks.monotonic()
        let idr = forceKeyframe || layerResumed || tick - lastKeyframeTick >= Int64(encoder.settings.gop)
        layerResumed = false
        var encoded = EncodedPicture(frames: [], rtpTimestamp: UInt32(truncatingIfNeeded: timestamp), mediaTime: due,
                                     capturedAt: picture.capturedAt)
        for (index, layer) in layers.enumerated() where layer.isActive {
            let layerPicture = layer.scaler?.scale(picture) ?? picture
            if let frame = try layer.encoder.encode(layerPicture, forceKeyframe: idr) { encoded.frames.append((index, frame)) }
        }
        guard !encoded.frames.isEmpty else { return nil }
        if encoded.isKeyframe { lastKeyframeTick = tick }
        return encoded
    }

    /// Encodes the due 20 ms of audio.
    func encodeAudio() throws -> (packet: UnsafeBufferPointer<UInt8>, rtpTimestamp: UInt32, mediaTime: UInt64)? {
        guard let opus else { return nil }
        let index = audioIndex
        let due = nextAudioDue
        audioIndex += 1
        let wallSamples = wallSampleOrigin + index * Int64(OpusAudioEncoder.frameSamples)
        try source.audio(into: pcm, index: index, wallClockSampleTime: wallSamples)
        let packet = try opus.encode(pcm)
        return (packet, UInt32(truncatingIfNeeded: index * Int64(OpusAudioEncoder.frameSamples)), due)
    }
}
