import Testing
@testable import OnAirForwarding
import OnAirTestSupport

/// ``TrackRewriter``: one publisher stream onto one viewer's SSRC, sequence and timestamp space.
@Suite("TrackRewriter")
struct TrackRewriterTests {
    func video(sequence: UInt16 = 1000, timestamp: UInt32 = 500_000) -> Driven<TrackRewriter> {
        Driven(TrackRewriter(ssrc: 0xAABB_CCDD, payloadType: 102, waitsForKeyframe: true,
                      initialSequence: sequence, initialTimestamp: timestamp))
    }

    func audio(sequence: UInt16 = 7, timestamp: UInt32 = 9) -> Driven<TrackRewriter> {
        Driven(TrackRewriter(ssrc: 0x1122_3344, payloadType: 111, waitsForKeyframe: false,
                      initialSequence: sequence, initialTimestamp: timestamp))
    }

    @Test("video waits for a keyframe; the keyframe gets the initial numbers")
    func videoKeyframeGating() throws {
        let track = video()
        #expect(track.ssrc == 0xAABB_CCDD && track.payloadType == 102 && track.waitsForKeyframe)
        for sequence: UInt16 in 40...49 {
            #expect(track.map(sequence: sequence, timestamp: 3000 * UInt32(sequence), startsKeyframe: false) == nil)
        }
        #expect(!track.started)
        #expect(track.publisherSequence(forViewerSequence: 1000) == nil)
        #expect(track.viewerTimestamp(forPublisherTimestamp: 150_000) == nil)

        let first = try #require(track.map(sequence: 50, timestamp: 150_000, startsKeyframe: true))
        #expect(track.started)
        #expect(first.sequence == 1000 && first.timestamp == 500_000)
        // The rest of the frame and later frames follow, keyframe or not.
        let second = try #require(track.map(sequence: 51, timestamp: 150_000, startsKeyframe: false))
        #expect(second.sequence == 1001 && second.timestamp == 500_000)
        let third = try #require(track.map(sequence: 52, timestamp: 153_000, startsKeyframe: false))
        #expect(third.sequence == 1002 && third.timestamp == 503_000)
    }

    @Test("audio starts at once, on any packet")
    func audioStartsImmediately() throws {
        let track = audio()
        let first = try #require(track.map(sequence: 30_000, timestamp: 960_000, startsKeyframe: false))
        #expect(track.started && first.sequence == 7 && first.timestamp == 9)
        let next = try #require(track.map(sequence: 30_001, timestamp: 960_960, startsKeyframe: false))
        #expect(next.sequence == 8 && next.timestamp == 969)
    }

    @Test("sequence numbers stay continuous across the publisher's 65535 → 0 wrap, over 70,000 packets")
    func continuityAcrossWrap() throws {
        let track = video(sequence: 65_000, timestamp: UInt32.max - 100_000)
        let publisherStart: UInt16 = 60_000
        let publisherTimestamp: UInt32 = UInt32.max - 3_000 * 10
        var expectedSequence: UInt16 = 65_000
        var publisherSequence = publisherStart
        var timestamp = publisherTimestamp
        var firstProblem: String?
        for index in 0..<70_500 where firstProblem == nil {
            guard let mapped = track.map(sequence: publisherSequence, timestamp: timestamp, startsKeyframe: index == 0) else {
                firstProblem = "packet \(index) (publisher sequence \(publisherSequence)) was dropped"
                break
            }
            let expectedTimestamp = (UInt32.max - 100_000) &+ (timestamp &- publisherTimestamp)
            if mapped.sequence != expectedSequence || mapped.timestamp != expectedTimestamp {
                firstProblem = "packet \(index): got \(mapped), expected (\(expectedSequence), \(expectedTimestamp))"
            } else if track.publisherSequence(forViewerSequence: mapped.sequence) != publisherSequence {
                firstProblem = "packet \(index): the inverse of \(mapped.sequence) is not \(publisherSequence)"
            }
            expectedSequence &+= 1
            publisherSequence &+= 1
            if index % 10 == 9 { timestamp &+= 3_000 }  // 10 packets per 30 fps frame; wraps the timestamp too
        }
        #expect(firstProblem == nil)
        #expect(timestamp < publisherTimestamp, "the timestamp wrapped as well")
        #expect(publisherSequence == publisherStart &+ UInt16(truncatingIfNeeded: 70_500))
    }

    @Test("packets from before the viewer joined are dropped, also across a wrap")
    func dropsPacketsFromBeforeJoin() throws {
        let track = video()
        _ = try #require(track.map(sequence: 65_530, timestamp: 10, startsKeyframe: true))
        // Older than the keyframe the viewer started on: would precede it, so dropped.
        #expect(track.map(sequence: 65_529, timestamp: 7, startsKeyframe: false) == nil)
        #expect(track.map(sequence: 65_000, timestamp: 7, startsKeyframe: false) == nil)
        // Move past the wrap, then a late packet from before the join is still dropped...
        for sequence: UInt16 in [65_531, 65_532, 65_533, 65_534, 65_535, 0, 1, 2, 3] {
            #expect(track.map(sequence: sequence, timestamp: 20, startsKeyframe: false) != nil)
        }
        #expect(track.map(sequence: 65_520, timestamp: 7, startsKeyframe: false) == nil)
        // ... and a late packet from after the join is forwarded with its own place in the sequence.
        let late = try #require(track.map(sequence: 65_533, timestamp: 20, startsKeyframe: false))
        #expect(late.sequence == 1003)
        let next = try #require(track.map(sequence: 4, timestamp: 20, startsKeyframe: false))
        #expect(next.sequence == 1000 &+ 10)
    }

    @Test("reordered packets keep their relative order")
    func reordering() throws {
        let track = audio(sequence: 65_534)
        _ = try #require(track.map(sequence: 100, timestamp: 0, startsKeyframe: false))
        let order: [UInt16] = [102, 101, 104, 103, 105]
        var mapped: [UInt16?] = []
        for sequence in order { mapped.append(track.map(sequence: sequence, timestamp: 0, startsKeyframe: false)?.sequence) }
        #expect(mapped == [0, 65_535, 2, 1, 3])
    }

    @Test("publisherSequence(forViewerSequence:) inverts map, for NACKs")
    func inverse() throws {
        let track = video(sequence: 3, timestamp: 0)
        _ = try #require(track.map(sequence: 65_534, timestamp: 0, startsKeyframe: true))
        for publisher: UInt16 in [65_534, 65_535, 0, 1, 2, 500] {
            let viewer = try #require(track.map(sequence: publisher, timestamp: 0, startsKeyframe: false))
            #expect(track.publisherSequence(forViewerSequence: viewer.sequence) == publisher)
        }
        #expect(track.publisherSequence(forViewerSequence: 3) == 65_534)
        #expect(track.publisherSequence(forViewerSequence: 2) == 65_533)
    }

    @Test("viewerTimestamp(forPublisherTimestamp:) uses the same offset as the packets (sender reports)")
    func timestamps() throws {
        let track = video(sequence: 0, timestamp: 100)
        let first = try #require(track.map(sequence: 9, timestamp: UInt32.max - 49, startsKeyframe: true))
        #expect(first.timestamp == 100)
        #expect(track.viewerTimestamp(forPublisherTimestamp: UInt32.max - 49) == 100)
        #expect(track.viewerTimestamp(forPublisherTimestamp: 50) == 200)  // across the 32-bit wrap
        #expect(track.viewerTimestamp(forPublisherTimestamp: UInt32.max - 149) == 0)
        let later = try #require(track.map(sequence: 10, timestamp: 50, startsKeyframe: false))
        #expect(later.timestamp == 200)
    }

    @Test("two viewers of the same stream get independent spaces")
    func independentViewers() throws {
        let a = video(sequence: 10, timestamp: 1), b = video(sequence: 60_000, timestamp: 2)
        _ = try #require(a.map(sequence: 500, timestamp: 9000, startsKeyframe: true))
        #expect(b.map(sequence: 501, timestamp: 9000, startsKeyframe: false) == nil)  // b joined mid-frame
        let bFirst = try #require(b.map(sequence: 600, timestamp: 12_000, startsKeyframe: true))
        let aLater = try #require(a.map(sequence: 600, timestamp: 12_000, startsKeyframe: true))
        #expect(bFirst.sequence == 60_000 && bFirst.timestamp == 2)
        #expect(aLater.sequence == 110 && aLater.timestamp == 3001)
    }
}
