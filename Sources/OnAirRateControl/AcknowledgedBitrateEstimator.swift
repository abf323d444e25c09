import OnAirWire

/// The rate at which the receiver got our packets, from their arrival times in
/// transport-cc feedback: GCC's R_hat, "the incoming bitrate measured over a T seconds
/// window" (draft-ietf-rmcat-gcc-02 §5.5, T = 0.5-1 s).
///
/// Counted over arrival times (the receiver's clock, a `Duration` since its zero), so bursty
/// feedback or a late feedback packet does not bend the figure. A fixed ring of (arrival,
/// bytes) with a running sum: adding a packet does not allocate. Arrivals are kept in whole
/// microseconds (transport-cc's resolution is 250 µs): 8 bytes a packet where a `Duration`
/// takes 16, 64 KiB less per transport-cc viewer at the default capacity.
struct AcknowledgedBitrateEstimator: Sendable, Hashable {
    let window: Duration
    /// Before the first full window, no figure from less than this span: two packets 1 ms
    /// apart would claim an absurd rate.
    static let minimumSpan: Duration = .milliseconds(100)

    /// Microseconds since the receiver's zero.
    private var arrivals: [Int64]
    private var sizes: [Int32]
    private var head = 0
    private var count = 0
    private var bytesInWindow = 0
    private var newest: Duration?
    private var oldestEver: Duration?
    /// Bytes of the first packet ever: it opens the span rather than filling it.
    private var firstBytes = 0

    init(window: Duration, capacity: Int) {
        self.window = max(window, .microseconds(1))
        arrivals = Array(repeating: 0, count: max(capacity, 16))
        sizes = Array(repeating: 0, count: max(capacity, 16))
    }

    mutating func add(arrival: Duration, bytes: Int) {
        if count == arrivals.count { dropOldest() }
        let slot = (head + count) % arrivals.count
        arrivals[slot] = arrival.nanoseconds / 1_000
        sizes[slot] = Int32(clamping: bytes)
        count += 1
        bytesInWindow += Int(sizes[slot])
        if oldestEver == nil {
            oldestEver = arrival
            firstBytes = bytes
        }
        newest = max(newest ?? arrival, arrival)
        // Keep (newest - window, newest].
        let windowStart = (newest! - window).nanoseconds / 1_000
        while count > 0, arrivals[head] <= windowStart { dropOldest() }
    }

    /// Bits per second, or nil before ``minimumSpan`` of arrivals.
    var bitrate: Int? {
        guard let newest, let oldestEver else { return nil }
        let span = newest - oldestEver
        if span >= window {
            return Self.bitsPerSecond(bytes: bytesInWindow, over: window)
        }
        guard span >= Self.minimumSpan else { return nil }
        return Self.bitsPerSecond(bytes: max(bytesInWindow - firstBytes, 0), over: span)
    }

    /// bits × 1e6 / µs: the span in whole µs (the resolution of transport-cc arrival
    /// times), so the quotient is rounded once.
    private static func bitsPerSecond(bytes: Int, over span: Duration) -> Int {
        Int(Double(bytes) * 8 * 1e6 / Double(span.nanoseconds / 1_000))
    }

    private mutating func dropOldest() {
        bytesInWindow -= Int(sizes[head])
        head = (head + 1) % arrivals.count
        count -= 1
    }
}
