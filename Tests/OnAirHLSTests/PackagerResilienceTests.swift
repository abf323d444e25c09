import Testing

@testable import OnAirHLS

/// What a live publisher does to the packager: lost frames, lost PLIs, a camera turned
/// off while the microphone stays on.
@Suite("LL-HLS packager: gaps and stalls")
struct PackagerResilienceTests {
    static let partTargetTicks: Int64 = 29_970     // 333 ms at 90 kHz

    /// Frames 14-24 are lost. The part holding frame 13 may stretch its last frame up to
    /// the part target but no further (§4.4.4.9); the rest is a hole in the timeline and
    /// the next part starts at frame 25's time.
    @Test func lostFramesNeverStretchAPartBeyondTheTarget() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        stream.missingVideo = 14..<25
        _ = try stream.feed(0..<40, to: &packager)
        let parts = try #require(packager.segmentInProgress?.parts)
        #expect(parts.allSatisfy { $0.duration <= .milliseconds(333) })
        let second = try parts[1].runs()[0]
        #expect(second.baseMediaDecodeTime == 9 * 3000)
        #expect(second.samples.map(\.duration) == [3000, 3000, 3000, 3000, UInt32(Self.partTargetTicks - 12_000)])
        #expect(try parts[2].runs()[0].baseMediaDecodeTime == 25 * 3000)
    }

    /// A publisher that never sends an IDR on its own gets asked again every 2 s.
    @Test func keyframeIsAskedForAgainAndAgain() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframes: [0])
        var askedAt: [Int] = []
        for frame in 0..<200 where try stream.feedFrame(frame, to: &packager).contains(.keyframeWanted) {
            askedAt.append(frame)
        }
        #expect(askedAt == [60, 120, 180])
        #expect(packager.segments.isEmpty)   // no IDR, no cut: the segment just grows
    }

    /// Video stops after 2 s while audio goes on; video returns with P-frames at 7 s (dropped)
    /// and an IDR at 8 s. Meanwhile audio-only parts keep the playlist moving, segments
    /// are cut by audio time, and the audio timeline never breaks.
    @Test func audioCarriesTheStreamWhileVideoIsAway() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframes: [0, 60, 240])
        stream.missingVideo = 60..<210
        var events: [LLHLSPackager.Event] = []
        for frame in 0..<300 { events += try stream.feedFrame(frame, to: &packager) }
        #expect(events.contains(.keyframeWanted))
        #expect(packager.droppedWhileAwaitingKeyframe == 30)                  // frames 210-239

        let segments = packager.segments
        #expect(segments.map(\.start) == [.seconds(0), .seconds(2)] + segments.dropFirst(2).map(\.start))
        #expect(segments.allSatisfy { $0.duration <= .milliseconds(2340) })
        #expect(segments.last?.parts.last.map { $0.duration > .zero } == true)
        // The IDR at 8 s comes 1.5 s into an audio-only segment: it opens an independent part.
        let resumed = try #require(packager.segmentInProgress)
        let firstVideo = try #require(try resumed.parts.first { try $0.runs().contains { $0.trackID == 1 } })
        #expect(firstVideo.isIndependent)
        #expect(try firstVideo.runs()[0].baseMediaDecodeTime == 240 * 3000)
        #expect(try firstVideo.runs()[0].samples.first?.flags == 0x0200_0000)
        _ = packager.finish()

        var audioTime: UInt64 = 0
        var audioFrames = 0
        var audioOnlyParts = 0
        for part in packager.segments.flatMap(\.parts) {
            #expect(part.duration <= .milliseconds(333), "part \(part.number)")
            let runs = try part.runs()
            if runs.map(\.trackID) == [2] {
                audioOnlyParts += 1
                #expect(part.isIndependent)
            }
            guard let audio = runs.first(where: { $0.trackID == 2 }) else { continue }
            #expect(audio.baseMediaDecodeTime == audioTime, "part \(part.number)")
            audioTime = audio.baseMediaDecodeTime + UInt64(audio.samples.count * 1024)
            audioFrames += audio.samples.count
        }
        #expect(audioOnlyParts >= 15)          // about 6 s of audio in parts of 320 ms
        #expect(audioFrames == stream.nextAudio)
        #expect(packager.droppedAudioFrames == 0)
    }

    /// A camera off for a minute: memory stays within the window, the playlist keeps moving.
    @Test func longVideoStallStaysBounded() throws {
        var packager = try SyntheticStream.packager(LLHLSConfiguration(playlistWindow: .seconds(6)))
        var stream = SyntheticStream(keyframeEvery: 60)
        stream.missingVideo = 60..<1_900
        _ = try stream.feed(0..<1_800, to: &packager)
        #expect(packager.segments.count <= 7)
        #expect(packager.mediaPlaylist().trailingParts.count >= 1 || packager.segments.last!.end > .seconds(55))
        #expect(packager.progress.lastMediaSequence ?? 0 >= 25)
    }
}

extension HLSMediaSegment {
    var end: Duration { start + duration }
}
