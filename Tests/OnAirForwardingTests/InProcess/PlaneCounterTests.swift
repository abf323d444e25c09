@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirWebRTC
import OnAirWire
import Testing

/// The plane's relay-wide counters, as `/metrics` exports them: they count what happened and
/// never go down (a Prometheus counter that falls reads as a reset).
@Suite("Media plane counters")
struct PlaneCounterTests {
    @Test("SRTP failures: tampered and replayed datagrams are counted, and the count stays when the stream ends")
    func srtpFailures() throws {
        let harness = try PlaneHarness()
        _ = try LiveStream(harness)
        harness.run(for: .milliseconds(500))
        let viewer = try harness.watch()
        harness.run(for: .milliseconds(500))
        #expect(harness.plane.srtpFailures == 0)

        // Three of the publisher's next RTP datagrams are held back and handed over tampered
        // (a flipped authentication tag) and one twice (a replay, RFC 3711 §3.3.2).
        var held: [(from: TransportAddress, bytes: [UInt8])] = []
        harness.dropsInbound = { from, datagram in
            guard held.count < 3, DatagramKind.classify(datagram) == .rtp else { return false }
            held.append((from, datagram))
            return true
        }
        harness.run(for: .milliseconds(200))
        harness.dropsInbound = nil
        #expect(held.count == 3)
        for (from, bytes) in held {
            var tampered = bytes
            tampered[tampered.count - 1] ^= 0x5A
            harness.plane.receive(tampered, from: from, now: harness.now)
        }
        harness.plane.receive(held[0].bytes, from: held[0].from, now: harness.now)
        harness.plane.receive(held[0].bytes, from: held[0].from, now: harness.now)   // replayed
        harness.run(for: .milliseconds(20))
        #expect(harness.plane.srtpFailures == 4)

        let padded = harness.plane.paddedPackets
        let publisher = try #require(harness.plane.sessions.values.first { $0.kind == .publisher })
        try harness.plane.deleteSession(id: publisher.id, room: harness.room, kind: .publisher, now: harness.now)
        harness.run(for: .milliseconds(100))
        #expect(harness.plane.sessions.isEmpty, "the viewer ended with its stream")
        #expect(viewer.frames.count > 0)
        #expect(harness.plane.srtpFailures == 4, "a counter must not fall when the sessions that counted are gone")
        #expect(harness.plane.paddedPackets >= padded)
    }
}
