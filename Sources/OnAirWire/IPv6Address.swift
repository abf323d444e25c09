/// Sixteen octets of an IPv6 address (RFC 4291), held in two integers: a value with no heap
/// storage, so that naming an IPv6 peer per datagram (the media path keys sessions by
/// address) allocates nothing, as an IPv4 one does not.
public struct IPv6Address: Hashable, Sendable {
    /// The first and last eight octets, in network order packed big-endian.
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// From 16 octets in network order (fewer are padded with zeros, more are cut).
    public init(_ octets: some Collection<UInt8>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, octet) in octets.prefix(16).enumerated() {
            if index < 8 { high |= UInt64(octet) << (56 - 8 * index) } else { low |= UInt64(octet) << (56 - 8 * (index - 8)) }
        }
        self.init(high: high, low: low)
    }

    /// From the 16 octets of a socket address (`in6_addr`), without copying to the heap.
    public init(networkBytes raw: UnsafeRawBufferPointer) {
        precondition(raw.count >= 16, "an IPv6 address has 16 octets")
        self.init(high: UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)),
                  low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    public var count: Int { 16 }

    /// Octet `index` (0..<16) in network order.
    public subscript(index: Int) -> UInt8 {
        precondition((0..<16).contains(index), "an IPv6 address has 16 octets")
        return UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (56 - 8 * (index % 8)))
    }

    public var octets: [UInt8] { (0..<16).map { self[$0] } }
}
