/// Where ``MediaInput`` reads from.
public enum MediaInputSource: Sendable, Equatable {
    /// Any file (or URL) libavformat reads.
    case file(String)
    /// A V4L2 capture device through libavdevice (`/dev/video0`), asked for this size and rate.
    case camera(device: String, width: Int, height: Int, framesPerSecond: Int)
}
