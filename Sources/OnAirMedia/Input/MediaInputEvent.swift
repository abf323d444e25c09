/// What one step of ``MediaInput/next(video:audio:)`` produced.
public enum MediaInputEvent: Sendable, Equatable {
    /// A picture was written into the video buffer (its `timestamp90kHz` set).
    case video
    /// Audio was appended to the PCM FIFO.
    case audio
    /// A live device had nothing ready (non-blocking capture): try again shortly.
    case notReady
    /// The file ended (decoders drained).
    case endOfInput
}
