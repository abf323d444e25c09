import OnAirMedia

/// Where pictures and sound come from, asked on the output clock: the pipeline ticks at the
/// output frame rate and every 20 ms of audio, and a source answers with what is current at that
/// instant (a file drops or repeats frames to match the rate, as `ffmpeg -r` does).
protocol BroadcastSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// The picture for output frame `tick` at `timestamp90kHz` (from the start of the
    /// broadcast); nil when there is nothing to show yet (or any more). The pipeline stamps
    /// `timestamp90kHz` on the picture before encoding (a repeated picture gets a new one).
    func picture(forTick tick: Int64, timestamp90kHz: Int64, wallClockMilliseconds: UInt64) throws(MediaInputError)
        -> VideoFrameBuffer?
    /// Fills one 20 ms Opus frame (960 x 2 interleaved samples) for audio frame `index`;
    /// `wallClockSampleTime` is the same instant as Unix time in 48 kHz samples.
    func audio(into samples: UnsafeMutablePointer<Int16>, index: Int64, wallClockSampleTime: Int64) throws(MediaInputError)
    /// True once a file without `--loop` has been sent to its end.
    var isFinished: Bool { get }
    /// One line for the start banner ("test pattern 1280x720@30", "file.mp4 640x360 (loop)").
    var summary: String { get }
}
