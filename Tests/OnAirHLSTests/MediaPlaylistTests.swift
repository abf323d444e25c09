import Testing

@testable import OnAirHLS

/// The playlist text, tag by tag (RFC 8216bis §4.4), from playlist values built by hand.
@Suite("Media and multivariant playlists (RFC 8216bis §4.4)")
struct MediaPlaylistTests {
    static func part(_ n: Int, _ ms: Int, independent: Bool = false) -> MediaPlaylist.Part {
        MediaPlaylist.Part(uri: "part\(n).m4s", duration: .milliseconds(ms), isIndependent: independent)
    }

    static let live = MediaPlaylist(
        targetDuration: 2, partTarget: .milliseconds(333), mediaSequence: 7, mapURI: "init.mp4",
        segments: [
            MediaPlaylist.Segment(uri: "seg7.m4s", duration: .seconds(2), programDateTime: 1_700_000_000_000),
            MediaPlaylist.Segment(uri: "seg8.m4s", duration: .milliseconds(2100), programDateTime: 1_700_000_002_000,
                                  parts: [part(20, 300, independent: true), part(21, 300), part(22, 1500)]),
        ],
        trailingParts: [part(23, 300, independent: true), part(24, 300)],
        trailingProgramDateTime: 1_700_000_004_100, preloadHintURI: "part25.m4s", hasEndList: false)

    @Test func liveMediaPlaylist() {
        #expect(Self.live.render() == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:2
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.0,PART-HOLD-BACK=0.999,HOLD-BACK=6.0
            #EXT-X-PART-INF:PART-TARGET=0.333
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:20.000Z
            #EXTINF:2.00000,
            seg7.m4s
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:22.000Z
            #EXT-X-PART:DURATION=0.30000,URI="part20.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.30000,URI="part21.m4s"
            #EXT-X-PART:DURATION=1.50000,URI="part22.m4s"
            #EXTINF:2.10000,
            seg8.m4s
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:24.100Z
            #EXT-X-PART:DURATION=0.30000,URI="part23.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.30000,URI="part24.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part25.m4s"

            """)
    }

    /// §4.4.3.8: HOLD-BACK ≥ 3 target durations, PART-HOLD-BACK ≥ 2 (we use 3) part
    /// targets, CAN-SKIP-UNTIL ≥ 6 target durations; they follow a raised target duration.
    @Test(arguments: [(2, 333, "12.0", "0.999", "6.0"), (4, 200, "24.0", "0.600", "12.0"), (1, 1000, "6.0", "3.000", "3.0")])
    func serverControlFollowsTheTargets(target: Int, partMilliseconds: Int, skip: String, partHoldBack: String, holdBack: String) {
        var playlist = Self.live
        playlist.targetDuration = target
        playlist.partTarget = .milliseconds(partMilliseconds)
        #expect(playlist.render().contains(
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=\(skip),PART-HOLD-BACK=\(partHoldBack),HOLD-BACK=\(holdBack)\n"))
        #expect(playlist.render().contains("#EXT-X-TARGETDURATION:\(target)\n"))
    }

    /// PART-HOLD-BACK is a minimum (three part targets): rounded up, never below it.
    @Test func partHoldBackIsRoundedUp() {
        var playlist = Self.live
        playlist.partTarget = .microseconds(333_340)
        #expect(playlist.render().contains("PART-HOLD-BACK=1.001,"))
        #expect(playlist.render().contains("#EXT-X-PART-INF:PART-TARGET=0.33334\n"))
    }

    @Test func endedPlaylistHasEndListAndNoHint() {
        var playlist = Self.live
        playlist.hasEndList = true
        let text = playlist.render()
        #expect(text.hasSuffix("#EXT-X-PART:DURATION=0.30000,URI=\"part24.m4s\"\n#EXT-X-ENDLIST\n"))
        #expect(!text.contains("PRELOAD-HINT"))
        #expect(playlist.render(deltaUpdate: true) == text)   // §6.2.5.1: _HLS_skip ignored after ENDLIST
    }

    @Test func exactlyOnePreloadHintWhileLive() {
        let lines = Self.live.render().split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-PRELOAD-HINT:") }.count == 1)
        #expect(lines.last == "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part25.m4s\"")
    }

    /// §6.2.5.1 / §4.4.5.2: segments whose end is further than the Skip Boundary (12 s)
    /// from the end of the last segment become EXT-X-SKIP; the rest stays as it was.
    @Test func deltaUpdateSkipsOldSegments() {
        var playlist = Self.live
        playlist.segments = (0..<10).map { MediaPlaylist.Segment(uri: "seg\($0).m4s", duration: .seconds(2)) }
        playlist.mediaSequence = 0
        // The last segment ends at 20 s; seg0-seg2 end at 2, 4, 6 s, more than 12 s before it.
        // seg3 ends at 8 s, exactly 12 s before: not further than the boundary, so kept.
        #expect(playlist.skippableSegmentCount == 3)
        let delta = playlist.render(deltaUpdate: true)
        #expect(delta.contains("#EXT-X-VERSION:9\n"))
        #expect(delta.contains("#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n#EXTINF:2.00000,\nseg3.m4s\n"))
        #expect(!delta.contains("seg2.m4s"))
        #expect(delta.contains("#EXT-X-MEDIA-SEQUENCE:0\n"))
        #expect(delta.hasSuffix("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part25.m4s\"\n"))
        let full = playlist.render()
        #expect(full.contains("seg0.m4s") && !full.contains("EXT-X-SKIP") && full.contains("#EXT-X-VERSION:6\n"))
    }

    @Test func shortPlaylistHasNothingToSkip() {
        #expect(Self.live.skippableSegmentCount == 0)
        #expect(Self.live.render(deltaUpdate: true) == Self.live.render())
    }

    @Test func multivariantPlaylist() {
        let top = VariantStream(bandwidth: 2_400_000, averageBandwidth: 2_000_000, codecs: "avc1.42e01f,mp4a.40.2",
                                resolution: .init(width: 1280, height: 720), frameRateMillihertz: 29_970, uri: "media-f.m3u8")
        let low = VariantStream(bandwidth: 300_000, codecs: "avc1.42e00d,mp4a.40.2",
                                resolution: .init(width: 320, height: 180), frameRateMillihertz: 30_000, uri: "media-q.m3u8")
        #expect(MultivariantPlaylist(variants: [top, low]).render() == """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=2400000,AVERAGE-BANDWIDTH=2000000,CODECS="avc1.42e01f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970
            media-f.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS="avc1.42e00d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=30.000
            media-q.m3u8

            """)
        let audioOnly = MultivariantPlaylist(variants: [VariantStream(bandwidth: 64_000, codecs: "mp4a.40.2", resolution: nil,
                                                                      uri: "media.m3u8")])
        #expect(audioOnly.render().contains("#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"\nmedia.m3u8\n"))
    }

    /// §4.4.5.4: one report per other rendition, after the segments and the preload hint.
    @Test func renditionReports() {
        var playlist = Self.live
        playlist.renditionReports = [
            RenditionReport(uri: "media-h.m3u8", lastMediaSequence: 12, lastPart: 3),
            RenditionReport(uri: "media-q.m3u8", lastMediaSequence: 11, lastPart: nil),
        ]
        let text = playlist.render()
        #expect(text.hasSuffix("""
            #EXT-X-RENDITION-REPORT:URI="media-h.m3u8",LAST-MSN=12,LAST-PART=3
            #EXT-X-RENDITION-REPORT:URI="media-q.m3u8",LAST-MSN=11

            """))
        #expect(playlist.render(deltaUpdate: true).contains("LAST-MSN=12,LAST-PART=3"))
        let progress = PlaylistProgress(lastMediaSequence: 4, lastPart: PartPosition(mediaSequence: 5, index: 2),
                                        hasEndList: false, partTarget: .milliseconds(333))
        #expect(RenditionReport(uri: "x.m3u8", progress: progress)
                == RenditionReport(uri: "x.m3u8", lastMediaSequence: 5, lastPart: 2))
        #expect(RenditionReport(uri: "x.m3u8", progress: PlaylistProgress(lastMediaSequence: nil, lastPart: nil, hasEndList: false,
                                                                           partTarget: .milliseconds(333))) == nil)
    }
}
