/// The rate at which the receiver got our packets, from their arrival times in
/// transport-cc feedback: GCC's R_hat, "the incoming bitrate measured over a T seconds
/// window" (draft-ietf-rmcat-gcc-02 §5.5, T = 0.5-1 s).
///
/// Counted over arrival times (the receiver's clock), so bursty feedback or a late
/// feedback packet does not bend the figure. A fixed ring of (arrival, bytes) with a
/// running sum: adding a packet does not allocate.
struct AcknowledgedBitrateEstimator: Sendable, Hashable {
    /// Window in µs.
    let window: Int64
    /// Before the first full window, no figure from less than this span (µs): two
    /// packets 1 ms apart would claim an absurd rate.
    static let minimumSpan: Int64 = 100_000

    private var arrivals: [Int64]
    private var sizes: [Int32]
    private var head = 0
    private var count = 0
    private var bytesInWindow = 0
    private var newest: Int64?
    private var oldestEver: Int64?
    /// Bytes of the first packet ever: it opens the span rather than filling it.
    private var firstBytes = 0

    init(windowMicroseconds: Int64, capacity: Int) {
        window = max(windowMicroseconds, 1)
        arrivals = Array(repeating: 0, count: max(capacity, 16))
        sizes = Array(repeating: 0, count: max(capacity, 16))
    }

    mutating func add(arrival: Int64, bytes: Int) {
        if count == arrivals.count { dropOldest() }
        let slot = (head + count) % arrivals.count
        arrivals[slot] = arrival
        sizes[slot] = Int32(clamping: bytes)
        count += 1
        bytesInWindow += Int(sizes[slot])
        if oldestEver == nil {
            oldestEver = arrival
            firstBytes = bytes
        }
        newest = max(newest ?? arrival, arrival)
        // Keep (newest - window, newest].
        while count > 0, let newest, arrivals[head] <= newest - window { dropOldest() }
    }

    /// Bits per second, or nil before ``minimumSpan`` of arrivals.
    var bitrate: Int? {
        guard let newest, let oldestEver else { return nil }
        let span = newest - oldestEver
        if span >= window {
            return Int(Double(bytesInWindow) * 8 * 1e6 / Double(window))
        }
        guard span >= Self.minimumSpan else { return nil }
        return Int(Double(max(bytesInWindow - firstBytes, 0)) * 8 * 1e6 / Double(span))
    }

    private mutating func dropOldest() {
        bytesInWindow -= Int(sizes[head])
        head = (head + 1) % arrivals.count
        count -= 1
    }
}
