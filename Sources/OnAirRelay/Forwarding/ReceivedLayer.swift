import OnAirPayload
import OnAirWire

/// One video encoding a publisher sends (a simulcast layer, RFC 8853, or the only one): what
/// `/api/streams` lists whether or not it is the one forwarded. Counting is a few additions
/// per packet; the picture size is read from the SPS that leads each keyframe (H.264 §7.3.2.1).
struct ReceivedLayer {
    let ssrc: UInt32
    /// RFC 8852 rid, when the publisher sends simulcast.
    let rid: String?
    private(set) var packets: UInt64 = 0
    private(set) var bytes: UInt64 = 0
    private(set) var frames: UInt64 = 0
    private(set) var width: Int?
    private(set) var height: Int?
    /// Rates over the last sampling interval.
    private(set) var bitrate: Double = 0
    private(set) var framesPerSecond: Double = 0
    private(set) var lastPacketAt = MonoTime.zero
    private var sampledAt: MonoTime?
    private var sampledBytes: UInt64 = 0
    private var sampledFrames: UInt64 = 0

    init(ssrc: UInt32, rid: String?) {
        self.ssrc = ssrc
        self.rid = rid
    }

    /// Counts one packet (`size`: the whole RTP packet); the marker bit ends a frame (RFC 6184 §5.1).
    @inline(__always)
    mutating func count(size: Int, marker: Bool, payload: UnsafeRawBufferPointer, keyframe: Bool, now: MonoTime) {
        packets &+= 1
        bytes &+= UInt64(size)
        if marker { frames &+= 1 }
        lastPacketAt = now
        if keyframe, let sps = H264Keyframe.sequenceParameterSet(in: payload) {
            width = sps.width
            height = sps.height
        }
    }

    /// Updates the rates from the counts since the previous call (about once a second).
    mutating func sample(now: MonoTime) {
        if let sampledAt, now > sampledAt {
            let seconds = (now - sampledAt).seconds
            bitrate = Double(bytes - sampledBytes) * 8 / seconds
            framesPerSecond = Double(frames - sampledFrames) / seconds
        }
        sampledAt = now
        sampledBytes = bytes
        sampledFrames = frames
    }
}
