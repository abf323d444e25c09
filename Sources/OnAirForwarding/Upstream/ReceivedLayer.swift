import OnAirPayload
import OnAirRTP
import OnAirWire

/// One video encoding a publisher sends (a simulcast layer, RFC 8853, or the only one), with
/// everything the relay keeps per encoding: its packets for viewers' NACKs, its gaps for
/// NACKs upstream, its reception statistics and sender clock, its keyframe requests, and the
/// figures `/api/streams` lists. Counting is a few additions per packet; the picture size is
/// read from the SPS that leads each keyframe (H.264 §7.3.2.1).
package struct ReceivedLayer {
    package let ssrc: UInt32
    /// RFC 8852 rid, when the publisher sends simulcast.
    package let rid: String?
    /// Its rid's place in the offer's list (``StreamSource/videoRIDs``), or -1.
    package let rank: Int
    /// Recent packets (decrypted, as received) for answering viewers' NACKs.
    package var cache: RTPPacketCache
    /// Gaps in its sequence numbers, asked for again upstream (used when NACK was negotiated).
    package var gaps = NACKGenerator()
    /// RFC 3550 §6.4.1 reception statistics for our receiver reports.
    package var statistics: RTPStreamStatistics
    /// Its latest sender report: where its timestamps sit on the publisher's wallclock.
    package var clock: SenderClock?
    package var keyframeRequests = KeyframeRequestCoalescer()
    /// Set when someone needs a keyframe of this layer (promptly: a viewer joining or
    /// switching to it); the engine sends the PLI.
    package var keyframeWanted = false
    package var keyframePrompt = false
    package var lastKeyframeTimestamp: UInt32?
    /// The first packet of the access unit arriving now, when it opened with a preamble
    /// (``H264Keyframe/Role/preamble``): where a keyframe begins if its IDR follows.
    package var preambleStart: (sequence: UInt16, timestamp: UInt32)?
    /// RTP timestamp and sequence number of the newest packet that arrived in order.
    package var newestTimestamp: UInt32 = 0
    package var newestSequence: UInt16 = 0
    package private(set) var packets: UInt64 = 0
    package private(set) var bytes: UInt64 = 0
    package private(set) var frames: UInt64 = 0
    package private(set) var keyframes: UInt64 = 0
    package private(set) var width: Int?
    package private(set) var height: Int?
    /// Rates over the last sampling interval, and the bitrate smoothed over a few of them.
    package private(set) var bitrate: Double = 0
    package private(set) var smoothedBitrate: Double = 0
    package private(set) var framesPerSecond: Double = 0
    package private(set) var lastPacketAt = MonoTime.zero
    package private(set) var firstPacketAt: MonoTime?
    private var sampledAt: MonoTime?
    private var sampledBytes: UInt64 = 0
    private var sampledFrames: UInt64 = 0

    package init(ssrc: UInt32, rid: String?, rank: Int = -1, cacheSize: Int = 1024) {
        self.ssrc = ssrc
        self.rid = rid
        self.rank = rid == nil ? -1 : rank
        cache = RTPPacketCache(capacity: cacheSize, maxPacketSize: 1500)
        statistics = RTPStreamStatistics(ssrc: ssrc)
    }

    /// Counts one packet (`size`: the whole RTP packet); the marker bit ends a frame (RFC 6184 §5.1).
    @inline(__always)
    package mutating func count(size: Int, marker: Bool, payload: UnsafeRawBufferPointer, role: H264Keyframe.Role, now: MonoTime) {
        packets &+= 1
        bytes &+= UInt64(size)
        if marker { frames &+= 1 }
        lastPacketAt = now
        if firstPacketAt == nil { firstPacketAt = now }
        if role != .other, let sps = H264Keyframe.sequenceParameterSet(in: payload) {
            width = sps.width
            height = sps.height
        }
    }

    /// A keyframe's preamble packets come before its IDR's first packet by at most this many.
    package static let maxPreamblePackets: UInt16 = 8

    /// Follows where access units begin (packets that arrive in order). For the first packet
    /// of an IDR, returns how many packets right before it are the keyframe's preamble (the
    /// SPS and PPS a viewer starting here needs first), else 0.
    @inline(__always)
    package mutating func keyframeLead(role: H264Keyframe.Role, sequence: UInt16, timestamp: UInt32) -> UInt16 {
        switch role {
        case .preamble:
            if preambleStart?.timestamp != timestamp { preambleStart = (sequence, timestamp) }
            return 0
        case .idrStart:
            defer { preambleStart = nil }
            guard let start = preambleStart, start.timestamp == timestamp else { return 0 }
            let lead = sequence &- start.sequence
            return lead <= Self.maxPreamblePackets ? lead : 0
        case .other:
            preambleStart = nil
            return 0
        }
    }

    /// A replica's record of a packet the publisher's worker took in order or not: the newest
    /// sequence number and timestamp follow the ones that move forward.
    @inline(__always)
    package mutating func noteNewest(sequence: UInt16, timestamp: UInt32) {
        guard packets <= 1 || Int16(bitPattern: sequence &- newestSequence) > 0 else { return }
        newestSequence = sequence
        newestTimestamp = timestamp
    }

    /// Counts a keyframe once per frame (an IDR's slices share a timestamp); true when this
    /// packet starts a new one.
    package mutating func keyframeStarted(timestamp: UInt32) -> Bool {
        guard lastKeyframeTimestamp != timestamp else { return false }
        lastKeyframeTimestamp = timestamp
        keyframes &+= 1
        keyframeRequests.keyframeArrived()
        return true
    }

    /// Sending now: a packet within four frame intervals (at least 200 ms, at most 1 s). A
    /// layer the publisher paused stops being a candidate within a few frames, so viewers on
    /// it move to another layer at once instead of waiting out a fixed silence.
    package func isLive(now: MonoTime) -> Bool {
        guard packets > 0 else { return false }
        let interval = framesPerSecond > 1 ? min(max(4 / framesPerSecond, 0.2), 1) : 1
        return (now - lastPacketAt).seconds < interval
    }

    /// Whether `sequence` arrived long enough ago that the cache no longer holds it (as
    /// opposed to not yet: a packet lost on the way in may still come as a repair).
    package func hasEvicted(_ sequence: UInt16) -> Bool {
        let age = newestSequence &- sequence
        return age >= UInt16(min(cache.capacity, 0x8000)) && age < 0x8000
    }

    /// A replica's layer starts from what the publisher's worker measured (``LayerRates``); its
    /// own samples take over from there.
    package mutating func seed(_ rates: LayerRates) {
        guard rates.ssrc == ssrc, rates.bitrate > 0 else { return }
        smoothedBitrate = rates.bitrate
        bitrate = rates.bitrate
        framesPerSecond = rates.framesPerSecond
        width = width ?? rates.width
        height = height ?? rates.height
    }

    /// Updates the rates from the counts since the previous call (about once a second).
    package mutating func sample(now: MonoTime) {
        if let sampledAt, now > sampledAt {
            let seconds = (now - sampledAt).seconds
            bitrate = Double(bytes - sampledBytes) * 8 / seconds
            framesPerSecond = Double(frames - sampledFrames) / seconds
            // A keyframe doubles one second's figure; what a link must carry is the average.
            smoothedBitrate = smoothedBitrate == 0 ? bitrate : 0.7 * smoothedBitrate + 0.3 * bitrate
        }
        sampledAt = now
        sampledBytes = bytes
        sampledFrames = frames
    }

    /// The layer for ``LayerSelector``: its bitrate so far until the first sample, and no
    /// candidate before a fifth of a second of it has arrived (a viewer joining as the stream
    /// starts would otherwise take a layer whose bitrate reads as zero).
    package func candidate(index: Int, now: MonoTime) -> LayerCandidate {
        var rate = smoothedBitrate
        var known = rate > 0
        if !known, let first = firstPacketAt, now - first >= .milliseconds(200) {
            rate = Double(bytes) * 8 / (now - first).seconds
            known = true
        }
        return LayerCandidate(index: index, bitrate: Int(rate), width: width, height: height, live: known && isLive(now: now))
    }
}
