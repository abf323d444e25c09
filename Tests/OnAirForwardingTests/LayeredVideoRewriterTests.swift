import OnAirRTP
import OnAirWire
import Testing
@testable import OnAirForwarding

/// Layer switches for one viewer: only at the new layer's keyframe, sequence numbers without
/// a gap, timestamps carried across through each layer's sender report, never backwards.
@Suite("LayeredVideoRewriter")
struct LayeredVideoRewriterTests {
    let t0 = MonoTime.seconds(50)
    /// Two layers of one sender: the same wallclock, unrelated random RTP bases (as libwebrtc
    /// and our broadcaster send them).
    let wallclock: UInt64 = 1_795_000_000_000_000_000
    let baseF: UInt32 = 3_000_000_000
    let baseH: UInt32 = 17

    func clocks() -> [SenderClock] {
        [SenderClock(ntpTime: NTPTime(unixNanoseconds: wallclock), rtpTimestamp: baseF, clockRate: 90_000),
         SenderClock(ntpTime: NTPTime(unixNanoseconds: wallclock), rtpTimestamp: baseH, clockRate: 90_000)]
    }

    func rewriter(target: Int?) -> LayeredVideoRewriter {
        LayeredVideoRewriter(rewriter: TrackRewriter(ssrc: 9, payloadType: 102, waitsForKeyframe: true,
                                                     initialSequence: 65_530, initialTimestamp: 4_000_000_000),
                             target: target)
    }

    /// Frame `n` of a layer: its RTP timestamp (30 fps) and sequence number (`packets` per frame).
    func frame(_ n: UInt32, base: UInt32) -> UInt32 { base &+ n * 3000 }

    @Test("switch at the new layer's keyframe: contiguous sequence numbers, the timestamp of the same instant")
    func switchKeepsTimeline() throws {
        var video = rewriter(target: 0)
        let clocks = clocks()
        // Layer 0 (f): waits for its keyframe, then frames 0...9 with two packets each.
        #expect(video.map(layer: 0, sequence: 100, timestamp: frame(0, base: baseF), startsKeyframe: false, now: t0) { clocks[$0] } == nil)
        var last: (sequence: UInt16, timestamp: UInt32)?
        for n: UInt32 in 1...10 {
            for packet in 0..<2 {
                let mapped = try #require(video.map(layer: 0, sequence: UInt16(100 + 2 * n) + UInt16(packet),
                                                    timestamp: frame(n, base: baseF), startsKeyframe: n == 1 && packet == 0,
                                                    now: t0) { clocks[$0] })
                if let last { #expect(mapped.sequence == last.sequence &+ 1) }
                last = mapped
            }
            // Layer 1 packets are not this viewer's.
            #expect(video.map(layer: 1, sequence: UInt16(7000 + n), timestamp: frame(n, base: baseH), startsKeyframe: false,
                              now: t0) { clocks[$0] } == nil)
        }
        let lastF = try #require(last)
        #expect(video.current == 0)

        // Switch to layer 1 (h): its delta frames are not taken, its keyframe (frame 12) is.
        video.target = 1
        #expect(video.isSwitching)
        #expect(video.map(layer: 1, sequence: 7011, timestamp: frame(11, base: baseH), startsKeyframe: false, now: t0) { clocks[$0] } == nil)
        let keyframe = try #require(video.map(layer: 1, sequence: 7012, timestamp: frame(12, base: baseH), startsKeyframe: true,
                                              now: t0) { clocks[$0] })
        #expect(video.current == 1 && !video.isSwitching && video.switches == 1)
        #expect(keyframe.sequence == lastF.sequence &+ 1)
        // Frame 12 of h is two frame intervals after frame 10 of f on the sender's wallclock.
        #expect(keyframe.timestamp == lastF.timestamp &+ 6000)
        let next = try #require(video.map(layer: 1, sequence: 7013, timestamp: frame(13, base: baseH), startsKeyframe: false,
                                          now: t0) { clocks[$0] })
        #expect(next.sequence == keyframe.sequence &+ 1 && next.timestamp == keyframe.timestamp &+ 3000)
        // Layer 0 no longer reaches this viewer.
        #expect(video.map(layer: 0, sequence: 130, timestamp: frame(13, base: baseF), startsKeyframe: true, now: t0) { clocks[$0] } == nil)

        // NACKs: the viewer's numbers lead back to the layer that sent them.
        let before = try #require(video.source(ofViewerSequence: lastF.sequence))
        #expect(before.layer == 0 && before.sequence == 121)
        let after = try #require(video.source(ofViewerSequence: next.sequence))
        #expect(after.layer == 1 && after.sequence == 7013)
        #expect(video.source(ofViewerSequence: next.sequence &+ 5) == nil)
    }

    @Test("a sender report that would move the timeline backwards is not followed")
    func neverBackwards() throws {
        var video = rewriter(target: 0)
        // Layer 1's report puts its keyframe a second *before* what layer 0 sent last.
        let clocks = [SenderClock(ntpTime: NTPTime(unixNanoseconds: wallclock), rtpTimestamp: baseF, clockRate: 90_000),
                      SenderClock(ntpTime: NTPTime(unixNanoseconds: wallclock + 5_000_000_000), rtpTimestamp: baseH, clockRate: 90_000)]
        let first = try #require(video.map(layer: 0, sequence: 1, timestamp: baseF, startsKeyframe: true, now: t0) { clocks[$0] })
        video.target = 1
        let switched = try #require(video.map(layer: 1, sequence: 500, timestamp: baseH, startsKeyframe: true, now: t0) { clocks[$0] })
        #expect(Int32(bitPattern: switched.timestamp &- first.timestamp) >= 1)
        #expect(Int32(bitPattern: switched.timestamp &- first.timestamp) <= 900_000)
    }

    @Test("without sender reports the step is the time since the last packet went out")
    func stepFromElapsedTime() throws {
        var video = rewriter(target: 0)
        let first = try #require(video.map(layer: 0, sequence: 1, timestamp: 10, startsKeyframe: true, now: t0) { _ in nil })
        video.target = 1
        let switched = try #require(video.map(layer: 1, sequence: 900, timestamp: 77, startsKeyframe: true,
                                              now: t0 + .milliseconds(100)) { _ in nil })
        #expect(switched.timestamp == first.timestamp &+ 9000)
        #expect(switched.sequence == first.sequence &+ 1)
    }

    @Test("pause: video stops at once; resume at a keyframe continues the numbering")
    func pauseAndResume() throws {
        var video = rewriter(target: 0)
        let clocks = clocks()
        let first = try #require(video.map(layer: 0, sequence: 1, timestamp: baseF, startsKeyframe: true, now: t0) { clocks[$0] })
        video.target = nil
        #expect(video.map(layer: 0, sequence: 2, timestamp: baseF &+ 3000, startsKeyframe: false, now: t0) { clocks[$0] } == nil)
        #expect(video.current == nil)
        video.target = 1
        let resumed = try #require(video.map(layer: 1, sequence: 40, timestamp: baseH &+ 90_000, startsKeyframe: true,
                                             now: t0 + .seconds(1)) { clocks[$0] })
        #expect(resumed.sequence == first.sequence &+ 1)
        #expect(resumed.timestamp == first.timestamp &+ 90_000)
    }

    @Test("a viewer that asks once per gap resumes after a pause 1,024 numbers on, with no holes to fill and none repaired")
    func pauseAndResumeAfresh() throws {
        var video = rewriter(target: 0)
        video.skipAfterPause = 1_024
        let clocks = clocks()
        let first = try #require(video.map(layer: 0, sequence: 1, timestamp: baseF, startsKeyframe: true, now: t0) { clocks[$0] })
        // Sequence 2 lost by the publisher's link; 3 sent: a hole at first + 1.
        let third = try #require(video.map(layer: 0, sequence: 3, timestamp: baseF &+ 3000, startsKeyframe: false, now: t0) { clocks[$0] })
        video.target = nil
        #expect(video.map(layer: 0, sequence: 4, timestamp: baseF &+ 6000, startsKeyframe: false, now: t0) { clocks[$0] } == nil)
        #expect(video.resumesAfresh && video.takeLeftBehind() == nil, "paused afresh: no holes to fill")
        #expect(video.source(ofViewerSequence: first.sequence) != nil, "still known while paused")
        video.target = 0
        let resumed = try #require(video.map(layer: 0, sequence: 40, timestamp: baseF &+ 90_000, startsKeyframe: true,
                                             now: t0 + .seconds(1)) { clocks[$0] })
        #expect(resumed.sequence == third.sequence &+ 1 &+ 1_024)
        #expect(!video.resumesAfresh && video.source(ofViewerSequence: first.sequence) == nil)
        #expect(video.sequencesSkipped == 1_024, "the viewer's reports count them lost: not its link's loss")
        // A switch down that is no pause keeps the numbering contiguous.
        video.target = 1
        video.leaveCurrentLayer()
        let switched = try #require(video.map(layer: 1, sequence: 7, timestamp: baseH &+ 180_000, startsKeyframe: true,
                                              now: t0 + .seconds(2)) { clocks[$0] })
        #expect(switched.sequence == resumed.sequence &+ 1)
    }

    @Test("leaving the current layer after a switch down: the old layer stops at once, the new one starts at its keyframe")
    func leaveCurrentLayer() throws {
        var video = rewriter(target: 0)
        let clocks = clocks()
        let first = try #require(video.map(layer: 0, sequence: 1, timestamp: baseF, startsKeyframe: true, now: t0) { clocks[$0] })
        video.leaveCurrentLayer()
        #expect(video.current == 0, "nothing to leave for: the target is the current layer")
        video.target = 1
        video.leaveCurrentLayer()
        #expect(video.current == nil && video.isSwitching)
        #expect(video.map(layer: 0, sequence: 2, timestamp: baseF &+ 3000, startsKeyframe: false, now: t0) { clocks[$0] } == nil)
        #expect(video.map(layer: 1, sequence: 40, timestamp: baseH &+ 3000, startsKeyframe: false, now: t0) { clocks[$0] } == nil)
        let switched = try #require(video.map(layer: 1, sequence: 41, timestamp: baseH &+ 6000, startsKeyframe: true,
                                              now: t0 + .milliseconds(66)) { clocks[$0] })
        #expect(switched.sequence == first.sequence &+ 1)
        // Two frame intervals on the sender's wallclock (± 1 tick of NTP rounding).
        #expect(abs(Int(Int32(bitPattern: switched.timestamp &- first.timestamp)) - 6000) <= 1)
        #expect(video.current == 1 && video.switches == 1)
        #expect(video.source(ofViewerSequence: first.sequence)?.layer == 0)
    }

    @Test("SenderClock: timestamps before and after the report, across the 32-bit wrap")
    func senderClock() {
        let clock = SenderClock(ntpTime: NTPTime(unixNanoseconds: 1_000_000_000_000), rtpTimestamp: 4_294_960_000, clockRate: 90_000)
        #expect(clock.wallclock(of: 4_294_960_000) == 1_000_000_000_000)
        #expect(clock.wallclock(of: 4_294_960_000 &+ 90_000) == 1_001_000_000_000)
        #expect(clock.wallclock(of: 4_294_960_000 &- 45_000) == 999_500_000_000)
    }
}
