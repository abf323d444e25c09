import OnAirForwarding
import OnAirWire

/// The media plane's datagrams, kept in order for the test to deliver. The plane builds and
/// protects each datagram in place in a slot, as it does for `sendmmsg`; the slots lie in one
/// block allocated up front, so that sending allocates nothing (``PlaneHarness`` counts the
/// plane's allocations); ``take()`` copies them out.
package final class CapturingSink: DatagramSink {
    package static let slotSize = 1_500
    package static let capacity = 8_192
    private let slots = UnsafeMutableRawBufferPointer.allocate(byteCount: slotSize * capacity, alignment: 16)
    private var queued: [(length: Int, to: TransportAddress)] = []
    /// Datagrams the plane built in place (media and RTCP it forwards), since the start.
    package private(set) var committed = 0
    /// Peers whose queue is full (``DatagramSink/hasRoom(for:)``: what a TCP connection's
    /// queue over its budget says).
    package var roomless: Set<TransportAddress> = []

    package init() { queued.reserveCapacity(Self.capacity) }

    deinit { slots.deallocate() }

    private func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: slots[(index * Self.slotSize)..<((index + 1) * Self.slotSize)])
    }

    package func nextSlot() -> UnsafeMutableRawBufferPointer {
        precondition(queued.count < Self.capacity, "more than \(Self.capacity) datagrams between two deliveries")
        return slot(queued.count)
    }

    package func commit(length: Int, to destination: DatagramDestination) {
        committed += 1
        queued.append((length, destination.address))
    }

    package func enqueue(_ bytes: [UInt8], to destination: DatagramDestination) {
        bytes.withUnsafeBytes { nextSlot().copyMemory(from: $0) }
        queued.append((bytes.count, destination.address))
    }

    package func flush() {}

    package func hasRoom(for destination: DatagramDestination) -> Bool { !roomless.contains(destination.address) }

    /// What was queued since the last call.
    package func take() -> [(bytes: [UInt8], to: TransportAddress)] {
        defer { queued.removeAll(keepingCapacity: true) }
        return queued.indices.map { index in (Array(slot(index)[..<queued[index].length]), queued[index].to) }
    }
}
