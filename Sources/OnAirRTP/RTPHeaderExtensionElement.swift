/// One RFC 8285 header extension element: a local identifier and its data, copied out
/// of the packet. The per-packet paths use ``RTPHeaderExtensionWalker`` ranges instead.
public struct RTPHeaderExtensionElement: Sendable, Hashable {
    /// Local identifier negotiated by `a=extmap` (1-14 one-byte, 1-255 two-byte).
    public var id: UInt8
    public var data: [UInt8]

    public init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }
}
