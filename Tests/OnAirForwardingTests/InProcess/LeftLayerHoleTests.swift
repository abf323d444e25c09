@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirRTP
import OnAirWire
import Testing

/// A hole from a layer the viewer left: filled at once for receivers that ask only once.
@Suite("Media plane, in-process: holes left behind")
struct LeftLayerHoleTests {
    @Test("packets of f lost on the way in, then the viewer moves to q: each hole is filled with filler data at once, in its frame")
    func holesOfALeftLayerAreFilled() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.last?.layer == 0 }
        // Two packets of f lost on the way in; the test publisher never answers a NACK, and
        // the viewer never asks (as aiortc, which asks once per gap).
        let ssrc = stream.publisher.layers[0].ssrc
        var lost = 0
        harness.dropsInbound = { _, datagram in
            guard lost < 2, let header = try? RTPHeader(parsing: datagram), header.ssrc == ssrc else { return false }
            lost += 1
            return true
        }
        harness.run(for: .milliseconds(200))
        #expect(lost == 2)
        let videoSSRC = try #require(viewer.video.first?.ssrc)
        func received() -> [RTPHeader] {
            viewer.peer.rtp.compactMap { try? RTPHeader(parsing: $0) }.filter { $0.ssrc == videoSSRC }
        }
        func holes() -> Int {
            let sequences = Set(received().map(\.sequenceNumber))
            guard let first = received().first?.sequenceNumber, let last = received().last?.sequenceNumber else { return 0 }
            return (0...Int(last &- first)).count { !sequences.contains(first &+ UInt16($0)) }
        }
        #expect(holes() == 2)
        let left = harness.now
        try harness.plane.setLayerCap(id: viewer.sessionID, room: harness.room, maximumHeight: 180, now: left)
        try harness.runUntil(timeout: .seconds(1)) { viewer.frames.last?.layer == 2 }
        // Well before the repair of f would give up (and that reaches f's viewers only).
        harness.run(for: .milliseconds(40))
        #expect(harness.now - left < .milliseconds(500))
        #expect(holes() == 0)
        let filler = viewer.video.filter { $0.payload.first.map { $0 & 0x1F } == 12 }
        #expect(filler.count == 2)
        // Each in the frame it belongs to: the timestamp of a neighbour from f.
        let fromF = Set(viewer.frames.filter { $0.layer == 0 }.map(\.timestamp))
        #expect(filler.allSatisfy { fromF.contains($0.timestamp) })
        #expect(viewer.peer.session.srtpFailures == 0)
    }

    @Test("a hole already filled (the repair gave up while the viewer was on f) is not filled again when it leaves f")
    func filledOnce() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.last?.layer == 0 }
        let ssrc = stream.publisher.layers[0].ssrc
        var lost = 0
        harness.dropsInbound = { _, datagram in
            guard lost < 1, let header = try? RTPHeader(parsing: datagram), header.ssrc == ssrc else { return false }
            lost += 1
            return true
        }
        harness.run(for: .seconds(3))
        let videoSSRC = try #require(viewer.video.first?.ssrc)
        let padding = viewer.peer.rtp.compactMap { try? RTPHeader(parsing: $0) }.filter { $0.ssrc == videoSSRC && $0.payloadLength == 0 }
        #expect(padding.count == 1, "the repair's give-up announced the hole")
        try harness.plane.setLayerCap(id: viewer.sessionID, room: harness.room, maximumHeight: 180, now: harness.now)
        try harness.runUntil(timeout: .seconds(1)) { viewer.frames.last?.layer == 2 }
        harness.run(for: .milliseconds(40))
        let hole = try #require(padding.first?.sequenceNumber)
        let copies = viewer.peer.rtp.compactMap { try? RTPHeader(parsing: $0) }.filter { $0.ssrc == videoSSRC && $0.sequenceNumber == hole }
        #expect(copies.count == 1, "a second copy that far behind resets aiortc's jitter buffer")
    }

    @Test("a viewer that repeats its NACKs (transport-cc: libwebrtc) gets nothing unasked")
    func notForViewersThatRepeatNACKs() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch(transportCC: true)
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.last?.layer == 0 }
        let ssrc = stream.publisher.layers[0].ssrc
        var lost = 0
        harness.dropsInbound = { _, datagram in
            guard lost < 2, let header = try? RTPHeader(parsing: datagram), header.ssrc == ssrc else { return false }
            lost += 1
            return true
        }
        harness.run(for: .milliseconds(200))
        try harness.plane.setLayerCap(id: viewer.sessionID, room: harness.room, maximumHeight: 180, now: harness.now)
        try harness.runUntil(timeout: .seconds(1)) { viewer.frames.last?.layer == 2 }
        harness.run(for: .milliseconds(40))
        #expect(viewer.video.count { $0.frame == nil && !$0.payload.isEmpty } == 0)
    }
}
