/// Recently sent packets of one stream (one SSRC), kept for answering NACKs
/// (RFC 4585 §6.2.1) with retransmissions (RFC 4588).
///
/// A ring of fixed slots indexed by sequence number, over one preallocated byte buffer:
/// storing copies the packet into its slot and never allocates. A newer packet whose
/// sequence number maps to the same slot overwrites the older one. Lookups match the
/// extended (unwrapped) sequence number, so a packet 65536 numbers old is never
/// mistaken for a current one.
///
/// A value type holding a large buffer: keep it in one place (e.g. a stream's state on
/// its event loop) and mutate it there; copying it and then storing copies the buffer.
public struct RTPPacketCache: Sendable {
    /// Number of slots, a power of two.
    public let capacity: Int
    /// Largest packet that can be stored.
    public let maxPacketSize: Int

    private var storage: [UInt8]
    /// Stored length per slot; 0 means empty.
    private var lengths: [Int]
    private var sequenceNumbers: [Int64]
    private var unwrapper = SequenceNumberUnwrapper()
    private var newest: Int64? = nil

    /// - Parameters:
    ///   - capacity: slots to keep; rounded up to a power of two (at least 1).
    ///   - maxPacketSize: bytes per slot (at most 65535, the UDP limit); larger packets
    ///     are not stored.
    public init(capacity: Int = 1024, maxPacketSize: Int = 1500) {
        var slots = 1
        while slots < capacity && slots < 1 << 16 { slots <<= 1 }
        self.capacity = slots
        self.maxPacketSize = min(max(0, maxPacketSize), 65535)
        storage = [UInt8](repeating: 0, count: slots * self.maxPacketSize)
        lengths = [Int](repeating: 0, count: slots)
        sequenceNumbers = [Int64](repeating: 0, count: slots)
    }

    @inline(__always)
    private func slot(for extended: Int64) -> Int { Int(truncatingIfNeeded: extended) & (capacity - 1) }

    /// Copies `packet` into the slot for `sequenceNumber`, replacing what was there.
    /// - Returns: false (and stores nothing) if the packet is empty or too large.
    @discardableResult
    public mutating func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16) -> Bool {
        guard packet.count > 0, packet.count <= maxPacketSize else { return false }
        let extended = unwrapper.unwrap(sequenceNumber)
        if newest.map({ extended > $0 }) ?? true { newest = extended }
        let index = slot(for: extended)
        let offset = index * maxPacketSize
        storage.withUnsafeMutableBytes { bytes in
            UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + packet.count)]).copyMemory(from: packet)
        }
        lengths[index] = packet.count
        sequenceNumbers[index] = extended
        return true
    }

    @discardableResult
    public mutating func store(_ packet: [UInt8], sequenceNumber: UInt16) -> Bool {
        packet.withUnsafeBytes { store($0, sequenceNumber: sequenceNumber) }
    }

    /// The slot holding `sequenceNumber`, if that exact packet is still cached.
    private func occupiedSlot(for sequenceNumber: UInt16) -> Int? {
        guard let newest else { return nil }
        let step = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: newest))
        let extended = newest + Int64(step)
        let index = slot(for: extended)
        guard lengths[index] > 0, sequenceNumbers[index] == extended else { return nil }
        return index
    }

    public func contains(sequenceNumber: UInt16) -> Bool { occupiedSlot(for: sequenceNumber) != nil }

    /// Calls `body` with the cached packet's bytes (valid only during the call), without
    /// copying; nil if the packet is not cached.
    public func withPacket<R>(
        sequenceNumber: UInt16, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R? {
        guard let index = occupiedSlot(for: sequenceNumber) else { return nil }
        let offset = index * maxPacketSize
        let length = lengths[index]
        return try storage.withUnsafeBytes { bytes in
            try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
        }
    }

    /// A copy of the cached packet, or nil.
    public func packet(sequenceNumber: UInt16) -> [UInt8]? {
        withPacket(sequenceNumber: sequenceNumber) { Array($0) }
    }

    /// Forgets every packet (e.g. when the stream restarts), keeping the buffer.
    public mutating func removeAll() {
        for i in 0..<capacity { lengths[i] = 0 }
        unwrapper = SequenceNumberUnwrapper()
        newest = nil
    }
}
