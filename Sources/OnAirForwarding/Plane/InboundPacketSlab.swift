/// Where the plane decrypts media datagrams and keeps them until the end of the read batch:
/// one block of fixed-size slots, allocated once, handed out in order and all taken back at
/// once when every room has fanned out (``MediaPlane/fanOutPending(now:)``). SRTP decrypts in
/// the slot (RFC 3711 §3.3 works in place), and rooms queue views into it, so a packet is
/// copied once on its way in and never allocated.
///
/// Confined to the plane's event loop.
package final class InboundPacketSlab {
    /// A slot holds one UDP datagram of the media port; larger ones are not media we forward
    /// (the relay's MTU is 1,500 and SRTP adds at most 16 octets).
    package static let slotSize = 2_048

    package let slotCount: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var used = 0

    package init(slotCount: Int = 256) {
        self.slotCount = slotCount
        storage = .allocate(byteCount: slotCount * Self.slotSize, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { storage.deallocate() }

    package var freeSlots: Int { slotCount - used }

    /// The next free slot, still free until ``keep()``: a packet that is dropped after its
    /// decryption leaves it for the next one. Nil when every slot is kept.
    @inline(__always)
    package func nextSlot() -> UnsafeMutableRawBufferPointer? {
        guard used < slotCount else { return nil }
        let start = used * Self.slotSize
        return UnsafeMutableRawBufferPointer(rebasing: storage[start..<(start + Self.slotSize)])
    }

    /// Keeps the slot ``nextSlot()`` gave last until ``reset()``.
    @inline(__always)
    package func keep() { used += 1 }

    /// Takes every slot back: nothing may refer to them any more.
    @inline(__always)
    package func reset() { used = 0 }
}
