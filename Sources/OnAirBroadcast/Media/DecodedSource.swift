import OnAirMedia

/// A file or a camera through ``MediaInput``: decoded pictures wait in a short queue until the
/// output clock reaches their timestamp; the newest due one is shown (older ones are dropped,
/// and the last is repeated when the input is slower than the output rate). Audio goes through
/// a FIFO; an input without audio, or one that runs dry, gives silence so the audio track stays
/// continuous. A looping file continues its timestamps across the restart.
final class DecodedSource: BroadcastSource {
    let width: Int
    let height: Int
    let summary: String
    private let input: MediaInput
    private let loops: Bool
    /// Pictures decoded ahead of the output clock, oldest first, and spare buffers.
    private var queue: [VideoFrameBuffer] = []
    private var spare: [VideoFrameBuffer] = []
    private var current: VideoFrameBuffer?
    private let queueLimit = 12
    private var fifo = PCMFifo(capacityFrames: 48_000 * 10)
    /// Added to the input's timestamps after each loop, so time never goes backwards.
    private var loopOffset90kHz: Int64 = 0
    private var lastTimestamp90kHz: Int64 = 0
    private let frameDuration90kHz: Int64
    private var inputEnded = false
    private(set) var isFinished = false
    /// Audio frames (per channel) the input produced on the broadcast's timeline, for loop padding.
    private var audioFramesRead: Int64 = 0

    init(input: MediaInput, width: Int, height: Int, framesPerSecond: Int, loops: Bool, summary: String) {
        self.input = input
        self.width = width
        self.height = height
        self.loops = loops
        self.summary = summary
        let sourceRate = input.videoFramesPerSecond ?? Double(framesPerSecond)
        frameDuration90kHz = Int64((90_000 / max(1, sourceRate)).rounded())
    }

    func picture(forTick tick: Int64, timestamp90kHz: Int64, wallClockMilliseconds: UInt64) throws(MediaInputError)
        -> VideoFrameBuffer? {
        try fill(untilVideoAfter: timestamp90kHz, audioFrames: 0)
        while let first = queue.first, first.timestamp90kHz <= timestamp90kHz {
            queue.removeFirst()
            if let current { spare.append(current) }
            current = first
        }
        if inputEnded && queue.isEmpty && timestamp90kHz >= lastTimestamp90kHz + frameDuration90kHz {
            isFinished = true
        }
        return current
    }

    func audio(into samples: UnsafeMutablePointer<Int16>, index: Int64, wallClockSampleTime: Int64) throws(MediaInputError) {
        let frames = OpusAudioEncoder.frameSamples
        try fill(untilVideoAfter: nil, audioFrames: frames)
        if !fifo.pop(into: samples, frames: frames) {
            samples.update(repeating: 0, count: frames * 2)  // no audio (yet): silence
        }
    }

    /// Decodes until a picture later than `timestamp` is queued (or the queue is full) and the
    /// FIFO holds `audioFrames`, or the input ended.
    private func fill(untilVideoAfter timestamp: Int64?, audioFrames: Int) throws(MediaInputError) {
        while !inputEnded {
            let needVideo = timestamp.map { time in (queue.last?.timestamp90kHz ?? -1) <= time } ?? false
            let needAudio = input.hasAudio && fifo.count < audioFrames
            guard (needVideo || needAudio), queue.count < queueLimit else { return }
            let target = spare.popLast() ?? VideoFrameBuffer(width: width, height: height)
            let buffered = fifo.count
            let event = try input.next(video: target, audio: &fifo)
            switch event {
            case .video:
                target.timestamp90kHz += loopOffset90kHz
                lastTimestamp90kHz = max(lastTimestamp90kHz, target.timestamp90kHz)
                queue.append(target)
                continue
            case .audio:
                audioFramesRead += Int64(max(0, fifo.count - buffered))
                spare.append(target)
            case .notReady:
                spare.append(target)
                return
            case .endOfInput:
                spare.append(target)
                guard loops else {
                    inputEnded = true
                    return
                }
                try restart()
            }
        }
    }

    /// `--loop`: the next pass starts one frame after the last picture; audio that ran short of
    /// the video is padded with silence so both stay in step.
    private func restart() throws(MediaInputError) {
        loopOffset90kHz = lastTimestamp90kHz + frameDuration90kHz
        if input.hasAudio {
            let expected = loopOffset90kHz * 48_000 / 90_000
            if audioFramesRead < expected {
                var silence = [Int16](repeating: 0, count: Int(expected - audioFramesRead) * 2)
                silence.withUnsafeMutableBufferPointer { fifo.push($0.baseAddress!, frames: $0.count / 2) }
            }
            audioFramesRead = max(audioFramesRead, expected)
        }
        try input.rewind()
    }
}
