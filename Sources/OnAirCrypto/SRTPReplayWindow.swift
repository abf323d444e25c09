/// The receiver's sliding replay window over packet indices (RFC 3711 §3.3.2).
///
/// 128 packets wide (RFC 3711 asks for at least 64; libsrtp also uses 128): a video burst
/// that arrives reordered by up to 127 packets still gets through. A plain value with no
/// heap storage, so checking and updating it never allocates.
struct SRTPReplayWindow: Sendable, Equatable {
    static let width: UInt64 = 128

    /// The highest index accepted so far (meaningless while `isEmpty`).
    private(set) var highest: UInt64 = 0
    /// Bit n set = index `highest - n` was accepted.
    private var seen: UInt128 = 0
    private(set) var isEmpty = true

    /// Whether `index` may be accepted: newer than the highest, or within the window and not
    /// yet seen. Call before the (costly) authentication, commit with `accept` after it.
    func allows(_ index: UInt64) -> Bool {
        if isEmpty || index > highest { return true }
        let age = highest - index
        guard age < Self.width else { return false }
        return seen & (1 << UInt128(age)) == 0
    }

    /// Records an authenticated packet's index.
    mutating func accept(_ index: UInt64) {
        if isEmpty {
            highest = index
            seen = 1
            isEmpty = false
        } else if index > highest {
            let shift = index - highest
            seen = shift >= Self.width ? 1 : (seen << UInt128(shift)) | 1
            highest = index
        } else {
            let age = highest - index
            if age < Self.width { seen |= 1 << UInt128(age) }
        }
    }
}
