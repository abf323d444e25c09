/// The shape of an H.264-like stream at a constant average bitrate: a GOP of `gop` frames whose
/// first (IDR) frame is `keyframeWeight` times the size of the others, each frame split into
/// FU-A fragments (RFC 6184 §5.8) of at most `maxFragment` bytes.
struct VideoModel {
    var bitrate: Int
    var framesPerSecond: Int
    var gop: Int
    var keyframeWeight: Int
    var maxFragment: Int

    /// 2.5 Mbit/s, 30 fps, an IDR every 2 s eight times a P frame, ~1.1 kB fragments (a packet
    /// of 1,130 bytes on the wire with the 12-byte RTP header and a 16-byte SRTP tag).
    static let `default` = VideoModel(bitrate: 2_500_000, framesPerSecond: 30, gop: 60, keyframeWeight: 8, maxFragment: 1_100)

    /// Bytes of a non-IDR frame, so that one GOP averages `bitrate`.
    var predictedFrameBytes: Int {
        let gopBytes = bitrate / 8 * gop / framesPerSecond
        return gopBytes / (gop - 1 + keyframeWeight)
    }

    func frameBytes(keyframe: Bool) -> Int { predictedFrameBytes * (keyframe ? keyframeWeight : 1) }

    /// Fragment sizes of a frame: as few as fit, equal to within a byte.
    func fragments(ofFrameBytes bytes: Int) -> [Int] {
        let count = max(1, (bytes + maxFragment - 1) / maxFragment)
        return (0..<count).map { index in bytes / count + (index < bytes % count ? 1 : 0) }
    }

    /// Average packets per second of video.
    var packetsPerSecond: Double {
        let perGOP = fragments(ofFrameBytes: frameBytes(keyframe: true)).count
            + (gop - 1) * fragments(ofFrameBytes: frameBytes(keyframe: false)).count
        return Double(perGOP) * Double(framesPerSecond) / Double(gop)
    }
}
