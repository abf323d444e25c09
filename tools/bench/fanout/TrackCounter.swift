/// Packets of one RTP stream as one viewer received them, counted from the clear RTP header
/// (SRTP leaves it readable, RFC 3711 §3.1) without decrypting.
struct TrackCounter {
    private(set) var received: UInt64 = 0
    /// Highest extended sequence number seen (RFC 3550 App. A.1 style unwrapping).
    private(set) var highest: Int64 = -1
    private var lastSequence: UInt16 = 0

    @inline(__always)
    mutating func record(sequence: UInt16) {
        received &+= 1
        if highest < 0 {
            highest = Int64(sequence)
            lastSequence = sequence
            return
        }
        let extended = highest + Int64(Int16(bitPattern: sequence &- lastSequence))
        if extended > highest {
            highest = extended
            lastSequence = sequence
        }
    }

    struct Snapshot {
        var received: UInt64
        var highest: Int64
    }

    var snapshot: Snapshot { Snapshot(received: received, highest: highest) }
}
