import Testing

@testable import OnAirHLS

/// What the relay serves from the packager: the sliding window, parts and the preload
/// hint, the end of the stream, dates and the multivariant playlist.
@Suite("LL-HLS packager: serving")
struct PackagerServingTests {
    /// 30 s of 2 s GOPs with a 6 s window: segments 0-13 are complete, 14 is in progress
    /// with six parts out (to 29.8 s).
    static func thirtySeconds() throws -> LLHLSPackager {
        var packager = try SyntheticStream.packager(LLHLSConfiguration(playlistWindow: .seconds(6)))
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<900, to: &packager)
        return packager
    }

    /// §6.2.2: the playlist lists the newest segments lasting at least the window (and
    /// three target durations); EXT-X-PART tags only within three target durations of the
    /// end; removed segments stay downloadable a while, then memory is given back.
    @Test func slidingWindow() throws {
        let packager = try Self.thirtySeconds()
        let playlist = packager.mediaPlaylist()
        #expect(playlist.mediaSequence == 11)
        #expect(playlist.segments.map(\.uri) == ["seg11.m4s", "seg12.m4s", "seg13.m4s"])
        #expect(playlist.segments.map(\.parts.count) == [0, 7, 7])     // seg11 starts 7.8 s before the end
        #expect(playlist.trailingParts.count == 6)
        let text = packager.renderMediaPlaylist()
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:11\n"))
        #expect(!text.contains("seg10.m4s"))
        // Kept: removed less than window + 2 target durations (10 s) ago.
        #expect(packager.segments.map(\.mediaSequence) == Array(8...13))
        #expect(packager.segment(mediaSequence: 8) != nil)
        #expect(packager.segment(mediaSequence: 7) == nil)
        let oldPart = 7 * 7                     // first part of segment 7
        guard case .notFound = packager.part(number: oldPart) else { Issue.record("part of an evicted segment"); return }
        guard case .available(let part) = packager.part(number: 8 * 7) else { Issue.record("part of segment 8"); return }
        #expect(part.position == PartPosition(mediaSequence: 8, index: 0))
    }

    @Test func memoryStaysBoundedByTheWindow() throws {
        var packager = try SyntheticStream.packager(LLHLSConfiguration(playlistWindow: .seconds(6)))
        var stream = SyntheticStream(keyframeEvery: 60)
        var peak = 0
        for second in 0..<120 {
            _ = try stream.feed(second * 30..<(second + 1) * 30, to: &packager)
            peak = max(peak, packager.segments.reduce(0) { $0 + $1.bytes.count })
        }
        let segmentBytes = try #require(packager.segments.last?.bytes.count)
        #expect(packager.segments.count == 6)
        #expect(peak <= 7 * segmentBytes)
    }

    /// §6.2.6: exactly one preload hint, naming the next part; that part is "pending"
    /// (hold the request) until published, then available; anything further is not found.
    @Test func preloadHintAndPartAvailability() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        guard case .pending = packager.part(number: 0) else { Issue.record("part 0 before anything"); return }
        _ = try stream.feed(0..<8, to: &packager)
        #expect(packager.renderMediaPlaylist().hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part0.m4s\"\n"))
        guard case .pending = packager.part(number: 0) else { Issue.record("hinted part 0"); return }
        guard case .notFound = packager.part(number: 1) else { Issue.record("unhinted part 1"); return }
        let events = try stream.feedFrame(8, to: &packager)
        #expect(events == [.partPublished(number: 0, position: PartPosition(mediaSequence: 0, index: 0))])
        guard case .available(let part) = packager.part(number: 0) else { Issue.record("published part 0"); return }
        #expect(part.isIndependent)
        #expect(packager.renderMediaPlaylist().hasSuffix(
            "#EXT-X-PART:DURATION=0.30000,URI=\"part0.m4s\",INDEPENDENT=YES\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part1.m4s\"\n"))
        guard case .pending = packager.part(number: 1) else { Issue.record("hinted part 1"); return }
    }

    /// Across a segment boundary the hinted part number stays right. With 334 ms parts (10
    /// frames) part 5 closes with frame 59, before anyone knows frame 60 is an IDR; the
    /// hint then names part 6, and part 6 is indeed what comes next, as part 0 of segment 1.
    /// (A name within the segment, "seg0.p6", would have been withdrawn.)
    @Test func hintSurvivesASegmentCut() throws {
        var packager = try SyntheticStream.packager(LLHLSConfiguration(partTarget: .milliseconds(334)))
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<60, to: &packager)
        #expect(packager.segmentInProgress?.parts.count == 6)
        #expect(packager.renderMediaPlaylist().hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part6.m4s\"\n"))
        let events = try stream.feed(60..<70, to: &packager)
        #expect(events.contains(.segmentCompleted(mediaSequence: 0)))
        #expect(events.contains(.partPublished(number: 6, position: PartPosition(mediaSequence: 1, index: 0))))
    }

    @Test func revisionChangesWhenThePlaylistDoes() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<8, to: &packager)
        let before = packager.revision
        _ = try stream.feed(8..<9, to: &packager)
        #expect(packager.revision > before)
        let after = packager.revision
        _ = try stream.feed(9..<10, to: &packager)
        #expect(packager.revision == after)
    }

    /// §6.2.1: at the end the playlist gets EXT-X-ENDLIST and loses the hint; held
    /// requests are released and the hinted part becomes 404.
    @Test func finishEndsThePresentation() throws {
        var packager = try Self.thirtySeconds()
        #expect(packager.decide(PlaylistRequest(mediaSequence: 15)) == .wait(.segment(15), deltaUpdate: false))
        let events = packager.finish()
        #expect(events == [.partPublished(number: 104, position: PartPosition(mediaSequence: 14, index: 6)),
                           .segmentCompleted(mediaSequence: 14), .ended])
        #expect(packager.finish().isEmpty)
        let text = packager.renderMediaPlaylist()
        #expect(text.hasSuffix("#EXTINF:2.00000,\nseg14.m4s\n#EXT-X-ENDLIST\n"))
        #expect(!text.contains("PRELOAD-HINT"))
        #expect(packager.decide(PlaylistRequest(mediaSequence: 15)) == .respond(deltaUpdate: false))
        #expect(packager.progress.isSatisfied(.segment(99)))
        guard case .notFound = packager.part(number: 105) else { Issue.record("no hint after the end"); return }
        #expect(throws: HLSPackagerError.finished) { try packager.append(SyntheticStream.picture(900, keyframe: false)) }
    }

    /// §4.4.4.6: dates follow media time from the anchor (here, 0.5 s before the first IDR).
    @Test func programDateTimes() throws {
        var packager = try SyntheticStream.packager()
        packager.anchorProgramDateTime(unixMilliseconds: 1_700_000_000_000,
                                       mediaTimestamp: SyntheticStream.videoEpoch - 45_000)
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<150, to: &packager)
        let playlist = packager.mediaPlaylist()
        #expect(playlist.segments.map(\.programDateTime) == [1_700_000_000_500, 1_700_000_002_500])
        #expect(playlist.trailingProgramDateTime == 1_700_000_004_500)
        #expect(packager.renderMediaPlaylist().contains("#EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:24.500Z\n#EXT-X-PART:"))
        let undated = try SyntheticStream.packager()
        #expect(!undated.renderMediaPlaylist().contains("PROGRAM-DATE-TIME"))
    }

    @Test func multivariantPlaylistMeasuresTheStream() throws {
        var packager = try SyntheticStream.packager()
        #expect(packager.multivariantPlaylist().render() == """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,CODECS="avc1.42c01e,mp4a.40.2",RESOLUTION=1280x720
            media.m3u8

            """)
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<300, to: &packager)
        let peak = packager.segments.map { $0.bytes.count * 8 / 2 }.max()!
        let total = packager.segments.reduce(0) { $0 + $1.bytes.count }
        let playlist = packager.variantStream()
        #expect(playlist.bandwidth == peak)
        #expect(playlist.averageBandwidth == total * 8 / (2 * packager.segments.count))
        #expect(packager.multivariantPlaylist().render().contains(",FRAME-RATE=30.000\n"))
    }

    /// §6.2.5.1 from the packager: a 30 s window after 40 s skips what is further than
    /// 12 s from the last segment's end.
    @Test func deltaUpdates() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<1200, to: &packager)
        let playlist = packager.mediaPlaylist()
        #expect(playlist.segments.count == 15)                 // seg4 ... seg18 (30 s)
        // seg4 ... seg11 end at 10 ... 24 s, more than 12 s before 38 s; seg12 ends exactly 12 s before.
        #expect(playlist.skippableSegmentCount == 8)
        let delta = packager.renderMediaPlaylist(deltaUpdate: true)
        #expect(delta.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=8\n"))
        #expect(delta.contains("#EXT-X-MEDIA-SEQUENCE:4\n"))
        #expect(!delta.contains("seg11.m4s") && delta.contains("seg12.m4s"))
        #expect(packager.decide(PlaylistRequest(msn: nil, part: nil, skip: "YES")) == .respond(deltaUpdate: true))
    }

    @Test func blockingDecisionsFollowThePackager() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<70, to: &packager)      // segment 0 done; segment 1 has part 7 out
        #expect(packager.progress == PlaylistProgress(lastMediaSequence: 0, lastPart: PartPosition(mediaSequence: 1, index: 0),
                                                      hasEndList: false, partTarget: .milliseconds(333)))
        let decision = packager.decide(PlaylistRequest(msn: "1", part: "1", skip: nil))
        #expect(decision == .wait(.part(PartPosition(mediaSequence: 1, index: 1)), deltaUpdate: false))
        _ = try stream.feed(70..<78, to: &packager)
        #expect(packager.progress.isSatisfied(.part(PartPosition(mediaSequence: 1, index: 1))))
    }
}
