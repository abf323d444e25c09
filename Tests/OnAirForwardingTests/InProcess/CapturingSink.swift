@testable import OnAirForwarding
import OnAirWire

/// The media plane's datagrams, kept in order for the test to deliver (one slot, copied on
/// commit: the plane builds and protects each datagram in place, as it does for `sendmmsg`).
final class CapturingSink: DatagramSink {
    private let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
    private(set) var queued: [(bytes: [UInt8], to: TransportAddress)] = []

    deinit { slot.deallocate() }

    func nextSlot() -> UnsafeMutableRawBufferPointer { slot }

    func commit(length: Int, to destination: DatagramDestination) {
        queued.append((Array(slot[0..<length]), destination.address))
    }

    func enqueue(_ bytes: [UInt8], to destination: DatagramDestination) {
        queued.append((bytes, destination.address))
    }

    func flush() {}

    /// What was queued since the last call.
    func take() -> [(bytes: [UInt8], to: TransportAddress)] {
        defer { queued.removeAll(keepingCapacity: true) }
        return queued
    }
}
