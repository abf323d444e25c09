import OnAirForwarding
import Glibc
import OnAirWire
import Testing
@testable import OnAirRelay

/// The media send path on real loopback sockets: runs of datagrams to one peer go out as
/// UDP GSO sends, and every receiver still gets exactly the datagrams queued for it, in order.
@Suite("Batched datagram sender")
struct BatchedDatagramSenderTests {
    /// A sending socket bound to 127.0.0.1 (closed by the caller).
    static func sendingSocket() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw UDPTestClient.Failure(description: "socket(): \(errno)") }
        return fd
    }

    static func destination(_ client: UDPTestClient) -> DatagramDestination {
        DatagramDestination(TransportAddress(ip: .v4(0x7F00_0001), port: client.port))
    }

    /// Queues `size` bytes, each `marker`, in the sender's next slot.
    static func queue(_ sender: BatchedDatagramSender, size: Int, marker: UInt8, to destination: DatagramDestination) {
        let slot = sender.nextSlot()
        for i in 0..<size { slot[i] = marker }
        sender.commit(length: size, to: destination)
    }

    static func receiveAll(_ client: UDPTestClient) -> [[UInt8]] {
        var received: [[UInt8]] = []
        while let datagram = client.receive() { received.append(datagram) }
        return received
    }

    @Test("each peer gets its datagrams in order, sizes intact; runs become fewer sends", arguments: [true, false])
    func runsPerPeer(segmentation: Bool) throws {
        let fd = try Self.sendingSocket()
        defer { close(fd) }
        let sender = BatchedDatagramSender(fd: fd, capacity: 256, useSegmentation: segmentation)
        let viewers = try (0..<3).map { _ in try UDPTestClient(receiveTimeoutMilliseconds: 200) }
        // Per viewer: five full-size packets, a shorter last one (ends the run), an audio-sized
        // one, then two more full ones: the shape of one read batch of a fan-out.
        let sizes = [1128, 1128, 1128, 1128, 1128, 700, 151, 1128, 1128]
        for (v, viewer) in viewers.enumerated() {
            for (i, size) in sizes.enumerated() {
                Self.queue(sender, size: size, marker: UInt8(v * 16 + i), to: Self.destination(viewer))
            }
        }
        sender.flush()
        #expect(sender.sent == UInt64(3 * sizes.count))
        #expect(sender.dropped == 0)
        if sender.segmentationEnabled {
            // [5 full + 700] (a shorter datagram ends a run), [151], [1128, 1128].
            #expect(sender.messagesSent == 3 * 3)
        } else {
            #expect(sender.messagesSent == sender.sent)
        }
        for (v, viewer) in viewers.enumerated() {
            let received = Self.receiveAll(viewer)
            #expect(received.map(\.count) == sizes)
            #expect(received.map { $0.first ?? 0 } == (0..<sizes.count).map { UInt8(v * 16 + $0) })
            #expect(received.allSatisfy { datagram in datagram.allSatisfy { $0 == datagram[0] } })
        }
    }

    @Test("a run stops at 64 segments, and datagrams over 1,400 bytes are never segmented")
    func runLimits() throws {
        let fd = try Self.sendingSocket()
        defer { close(fd) }
        let sender = BatchedDatagramSender(fd: fd, capacity: 512)
        try #require(sender.segmentationEnabled, "this kernel lacks UDP_SEGMENT")
        let viewer = try UDPTestClient(receiveTimeoutMilliseconds: 200)
        for i in 0..<100 { Self.queue(sender, size: 200, marker: UInt8(i), to: Self.destination(viewer)) }
        sender.flush()
        #expect(sender.messagesSent == 2, "64 + 36")
        let small = Self.receiveAll(viewer)
        #expect(small.count == 100 && small.map { $0[0] } == (0..<100).map(UInt8.init))
        for i in 0..<4 { Self.queue(sender, size: 1450, marker: UInt8(i), to: Self.destination(viewer)) }
        sender.flush()
        #expect(sender.messagesSent == 2 + 4)
        #expect(Self.receiveAll(viewer).map(\.count) == [1450, 1450, 1450, 1450])
    }

    @Test("a full arena flushes mid-run without losing or reordering anything")
    func arenaWraps() throws {
        let fd = try Self.sendingSocket()
        defer { close(fd) }
        let sender = BatchedDatagramSender(fd: fd, capacity: 8)
        let viewer = try UDPTestClient(receiveTimeoutMilliseconds: 200)
        for i in 0..<30 { Self.queue(sender, size: 300, marker: UInt8(i), to: Self.destination(viewer)) }
        sender.flush()
        #expect(sender.sent == 30)
        #expect(Self.receiveAll(viewer).map { $0[0] } == (0..<30).map(UInt8.init))
    }

    @Test("several sockets: each datagram leaves from its destination's base; runs never mix sockets")
    func socketPerBase() throws {
        let v4 = try Self.sendingSocket()
        let v6 = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(v4); close(v6) }
        let sender = BatchedDatagramSender(fds: [v4, v6], capacity: 64)
        let ipv4Viewer = try UDPTestClient(receiveTimeoutMilliseconds: 200)
        let ipv6Viewer = try UDPTestClient(receiveTimeoutMilliseconds: 200, ipv6: true)
        var toIPv6 = ipv6Viewer.address
        toIPv6.base = 1
        for i in 0..<6 {
            Self.queue(sender, size: 1000, marker: UInt8(i), to: Self.destination(ipv4Viewer))
            Self.queue(sender, size: 1000, marker: UInt8(100 + i), to: DatagramDestination(toIPv6))
        }
        // An IPv6 peer named with base 0 would leave from the IPv4 socket: the kernel refuses it.
        Self.queue(sender, size: 10, marker: 9, to: DatagramDestination(ipv6Viewer.address))
        sender.flush()
        #expect(Self.receiveAll(ipv4Viewer).map { $0[0] } == Array(0..<6))
        #expect(Self.receiveAll(ipv6Viewer).map { $0[0] } == Array(100..<106))
        #expect(sender.sent == 12 && sender.dropped == 1)
    }
}
