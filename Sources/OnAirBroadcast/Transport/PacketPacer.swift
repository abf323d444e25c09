/// Spreads a frame's RTP packets over time instead of sending them back to back (a keyframe is
/// 10-20 times a normal frame: as one burst it overflows router queues and reads as congestion
/// to a delay-based estimator, draft-ietf-rmcat-gcc-02 §4). Packets leave at a pacing rate of
/// 2.5 x the encoder's bitrate (libwebrtc's factor). What keeps the queue short is the media
/// loop, which drops frames at the encoder input while ``queueDelay(now:bitrate:)`` exceeds
/// its bound; `maximumQueueDelay` is only a safety valve (a burst let through on a thin
/// uplink overflows its queue and costs more than it saves).
///
/// Holds clear RTP packets in fixed slots allocated once: enqueue and release copy bytes and
/// allocate nothing. Extension values are stamped, and SRTP applied, by the caller at release.
struct PacketPacer: ~Copyable {
    static let slotBytes = 1300
    let capacity: Int
    private let storage: UnsafeMutableRawPointer
    private let lengths: UnsafeMutablePointer<Int>
    private let markers: UnsafeMutablePointer<(stream: Int, timestamp: UInt32, mediaTime: UInt64, enqueuedAt: UInt64)>
    private var head = 0
    private(set) var count = 0
    /// Bytes waiting in the queue.
    private(set) var queuedBytes = 0
    /// When the next packet may leave (monotonic ns).
    private(set) var nextRelease: UInt64 = 0
    var pacingFactor = 2.5
    var maximumQueueDelay: UInt64 = 500_000_000
    /// Packets due within this window leave together: one wake-up per 5 ms instead of one per
    /// packet (libwebrtc's pacer ticks every 5 ms too); halves the context switches of a 720p stream.
    var batchWindow: UInt64 = 5_000_000
    /// Packets that found the queue full and went out unpaced.
    private(set) var overflows: UInt64 = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * Self.slotBytes, alignment: 16)
        lengths = .allocate(capacity: capacity)
        lengths.initialize(repeating: 0, count: capacity)
        markers = .allocate(capacity: capacity)
        markers.initialize(repeating: (0, 0, 0, 0), count: capacity)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        markers.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Queues a clear packet; false (nothing queued) when full or too large.
    /// `stream` tells the caller at release which of its RTP streams (simulcast layers) it is.
    mutating func enqueue(_ packet: UnsafeRawBufferPointer, stream: Int = 0, rtpTimestamp: UInt32, mediaTime: UInt64,
                          now: UInt64) -> Bool {
        guard count < capacity, packet.count <= Self.slotBytes else {
            overflows += 1
            return false
        }
        let slot = (head + count) % capacity
        UnsafeMutableRawBufferPointer(start: storage + slot * Self.slotBytes, count: packet.count).copyMemory(from: packet)
        lengths[slot] = packet.count
        markers[slot] = (stream, rtpTimestamp, mediaTime, now)
        count += 1
        queuedBytes += packet.count
        return true
    }

    /// Calls `send` with each packet whose time has come: the whole slot (room for the SRTP tag
    /// after the packet, which the caller may protect in place) and the packet's length,
    /// advancing the release clock by its size at the pacing rate.
    mutating func release(now: UInt64, bitrate: Int,
                          _ send: (UnsafeMutableRawBufferPointer, _ length: Int, _ stream: Int, _ rtpTimestamp: UInt32,
                                   _ mediaTime: UInt64) -> Void) {
        if nextRelease < now { nextRelease = now }
        let rate = pacingFactor * Double(max(bitrate, 100_000))
        // Due by the pacing clock, or overdue: held `maximumQueueDelay` already.
        let horizon = now + batchWindow
        while count > 0, nextRelease <= horizon || markers[head].enqueuedAt + maximumQueueDelay <= now {
            let slot = head
            let length = lengths[slot]
            send(UnsafeMutableRawBufferPointer(start: storage + slot * Self.slotBytes, count: Self.slotBytes), length,
                 markers[slot].stream, markers[slot].timestamp, markers[slot].mediaTime)
            head = (head + 1) % capacity
            count -= 1
            queuedBytes -= length
            nextRelease += UInt64(Double(length * 8) / rate * 1e9)
        }
        if count == 0 { nextRelease = max(nextRelease, now) }
    }

    /// How long a packet queued now would wait: the pacing clock's lead plus the queued bytes
    /// at the pacing rate.
    func queueDelay(now: UInt64, bitrate: Int) -> UInt64 {
        guard count > 0 else { return 0 }
        let rate = pacingFactor * Double(max(bitrate, 100_000))
        let lead = nextRelease > now ? nextRelease - now : 0
        return lead + UInt64(Double(queuedBytes * 8) / rate * 1e9)
    }

    /// When the head packet must leave: its pacing time, or its queueing deadline if sooner.
    var nextDeadline: UInt64? {
        guard count > 0 else { return nil }
        let paced = nextRelease > batchWindow ? nextRelease - batchWindow : 0
        return min(paced, markers[head].enqueuedAt + maximumQueueDelay)
    }
}
