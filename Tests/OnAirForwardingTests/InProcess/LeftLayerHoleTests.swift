@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirRTP
import OnAirWire
import Testing

/// A hole from a layer the viewer left: filled at once for receivers that ask only once.
@Suite("Media plane, in-process: holes left behind")
struct LeftLayerHoleTests {
    /// A viewer on f; then `count` packets of f are lost on the way in, and `losing` runs.
    /// The test publisher never answers a NACK, and the test viewer never asks.
    private static func viewerOnF(transportCC: Bool = false, losing count: Int,
                                  for losing: Duration) throws -> (harness: PlaneHarness, viewer: TestViewer, lost: Int) {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch(transportCC: transportCC)
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.last?.layer == 0 }
        let ssrc = stream.publisher.layers[0].ssrc
        var lost = 0
        harness.dropsInbound = { _, datagram in
            guard lost < count, let header = try? RTPHeader(parsing: datagram), header.ssrc == ssrc else { return false }
            lost += 1
            return true
        }
        harness.run(for: losing)
        return (harness, viewer, lost)
    }

    /// Caps the viewer at 180 lines and runs until it has q, and 40 ms more (two ticks).
    private static func moveToQ(_ viewer: TestViewer, in harness: PlaneHarness) throws {
        try harness.plane.setLayerCap(id: viewer.sessionID, room: harness.room, maximumHeight: 180, now: harness.now)
        try harness.runUntil(timeout: .seconds(1)) { viewer.frames.last?.layer == 2 }
        harness.run(for: .milliseconds(40))
    }

    /// The headers of every video packet the viewer got, padding and filler included.
    private static func videoHeaders(of viewer: TestViewer) throws -> [RTPHeader] {
        let ssrc = try #require(viewer.video.first?.ssrc)
        return viewer.peer.rtp.compactMap { try? RTPHeader(parsing: $0) }.filter { $0.ssrc == ssrc }
    }

    @Test("packets of f lost on the way in, then the viewer moves to q: each hole is filled with filler data at once, in its frame")
    func holesOfALeftLayerAreFilled() throws {
        // As aiortc, the viewer asks once per gap: here never.
        let (harness, viewer, lost) = try Self.viewerOnF(losing: 2, for: .milliseconds(200))
        #expect(lost == 2)
        func holes() throws -> Int {
            let received = try Self.videoHeaders(of: viewer)
            let sequences = Set(received.map(\.sequenceNumber))
            guard let first = received.first?.sequenceNumber, let last = received.last?.sequenceNumber else { return 0 }
            return (0...Int(last &- first)).count { !sequences.contains(first &+ UInt16($0)) }
        }
        #expect(try holes() == 2)
        let left = harness.now
        try Self.moveToQ(viewer, in: harness)
        // Well before the repair of f would give up (and that reaches f's viewers only).
        #expect(harness.now - left < .milliseconds(500))
        #expect(try holes() == 0)
        let filler = viewer.video.filter { $0.payload.first.map { $0 & 0x1F } == 12 }
        #expect(filler.count == 2)
        // Each in the frame it belongs to: the timestamp of a neighbour from f.
        let fromF = Set(viewer.frames.filter { $0.layer == 0 }.map(\.timestamp))
        #expect(filler.allSatisfy { fromF.contains($0.timestamp) })
        #expect(viewer.peer.session.srtpFailures == 0)
    }

    @Test("a hole already filled (the repair gave up while the viewer was on f) is not filled again when it leaves f")
    func filledOnce() throws {
        let (harness, viewer, _) = try Self.viewerOnF(losing: 1, for: .seconds(3))
        let padding = try Self.videoHeaders(of: viewer).filter { $0.payloadLength == 0 }
        #expect(padding.count == 1, "the repair's give-up announced the hole")
        try Self.moveToQ(viewer, in: harness)
        let hole = try #require(padding.first?.sequenceNumber)
        let copies = try Self.videoHeaders(of: viewer).filter { $0.sequenceNumber == hole }
        #expect(copies.count == 1, "a second copy that far behind resets aiortc's jitter buffer")
    }

    @Test("a viewer that repeats its NACKs (transport-cc: libwebrtc) gets nothing unasked")
    func notForViewersThatRepeatNACKs() throws {
        let (harness, viewer, _) = try Self.viewerOnF(transportCC: true, losing: 2, for: .milliseconds(200))
        try Self.moveToQ(viewer, in: harness)
        #expect(viewer.video.count { $0.frame == nil && !$0.payload.isEmpty } == 0)
    }
}
