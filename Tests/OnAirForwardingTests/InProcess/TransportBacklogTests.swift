@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirWire
import Testing

/// A viewer on ICE-TCP whose connection's queue is full (the sink's ``DatagramSink/hasRoom(for:)``):
/// whole frames only, and a restart at a keyframe once there is room.
@Suite("Media plane, in-process: a TCP viewer's full queue")
struct TransportBacklogTests {
    /// A stream (`rids`), a viewer (over TCP unless `tcp` is false) playing it, and the frames it has.
    private static func playing(rids: [String], tcp: Bool = true) throws -> (PlaneHarness, LiveStream, TestViewer) {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness, rids: rids)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch(tcp: tcp)
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.count > 10 }
        return (harness, stream, viewer)
    }

    @Test("queue full: no new frame, audio goes on; room again: a keyframe is asked for and starts the video, numbers without a gap",
          arguments: [["f"], ["f", "h", "q"]])
    func restartsAtAKeyframe(rids: [String]) throws {
        let (harness, stream, viewer) = try Self.playing(rids: rids)
        let layer = try #require(viewer.frames.last?.layer)
        let requestsBefore = stream.keyframeRequests[layer]?.count ?? 0
        harness.sink.roomless.insert(viewer.peer.address)
        harness.run(for: .milliseconds(20))  // the batch in flight
        let framesBefore = viewer.frames.count
        let audioBefore = viewer.audioPackets
        harness.run(for: .milliseconds(600))
        #expect(viewer.frames.count == framesBefore, "frames went into a full queue")
        #expect(viewer.audioPackets - audioBefore >= 25, "audio stopped with the video")
        #expect((stream.keyframeRequests[layer]?.count ?? 0) == requestsBefore, "a keyframe asked for while the queue is full")

        harness.sink.roomless.removeAll()
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.count > framesBefore + 5 }
        let resumed = Array(viewer.frames[framesBefore...])
        #expect(resumed.first?.keyframe == true, "the video restarted on a delta frame")
        #expect((stream.keyframeRequests[layer]?.count ?? 0) > requestsBefore, "no keyframe asked for once there was room")
        // The viewer's numbers run on: nothing to NACK for frames that would not have decoded.
        let sequences = viewer.video.map(\.sequence)
        let gaps = zip(sequences, sequences.dropFirst()).filter { $1 &- $0 != 1 }
        #expect(gaps.isEmpty, "gaps in the viewer's sequence numbers: \(gaps)")
        let snapshot = try #require(harness.snapshot(of: viewer))
        #expect(snapshot.transport == "tcp" && snapshot.transportRestarts == 1)
    }

    @Test("over UDP the queue check is never asked: frames go on")
    func udpIsNotGated() throws {
        let (harness, _, viewer) = try Self.playing(rids: ["f"], tcp: false)
        harness.sink.roomless.insert(viewer.peer.address)
        let framesBefore = viewer.frames.count
        harness.run(for: .milliseconds(600))
        #expect(viewer.frames.count >= framesBefore + 15)
        #expect(harness.snapshot(of: viewer)?.transportRestarts == 0 && harness.snapshot(of: viewer)?.transport == "udp")
    }
}
