/// The slots of a ring that hands packets between threads (``MediaTapRing``, ``StreamFeed``):
/// `capacity` fixed slots of `slotSize` bytes, allocated and zeroed once, addressed by a
/// running record count (a power-of-two capacity makes that a mask).
package struct SlotStorage: ~Copyable {
    package let capacity: Int
    package let slotSize: Int
    private let bytes: UnsafeMutableRawBufferPointer

    package init(capacity: Int, slotSize: Int) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        self.slotSize = slotSize
        bytes = .allocate(byteCount: capacity * slotSize, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { bytes.deallocate() }

    /// The slot of record `index` (counted from the start), to write.
    @inline(__always)
    package func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        let start = (index & (capacity - 1)) * slotSize
        return UnsafeMutableRawBufferPointer(rebasing: bytes[start..<(start + slotSize)])
    }

    /// The slot of record `index`, to read.
    @inline(__always)
    package func record(_ index: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(slot(index)) }
}
