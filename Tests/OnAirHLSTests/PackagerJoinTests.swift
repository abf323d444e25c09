import Testing
@testable import OnAirHLS

/// Renditions of one presentation (ABR): a rendition that starts late joins the others'
/// timeline and numbering (RFC 8216bis §6.2.4), so that the same Media Sequence Number
/// names content starting at the same time everywhere.
@Suite("LL-HLS packager: joining a presentation")
struct PackagerJoinTests {
    @Test("a late rendition numbers its first segment like the others and cuts where they cut")
    func lateRenditionAligns() throws {
        var first = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<130, to: &first)
        let origin = try #require(first.origin)
        let open = try #require(first.openSegmentStart)
        #expect(open.mediaSequence == 2 && open.timestamp == SyntheticStream.videoEpoch + 120 * 3000)

        var late = try SyntheticStream.packager()
        late.join(originTimestamp: origin, mediaSequence: open.mediaSequence)
        var lateStream = SyntheticStream(keyframeEvery: 60)
        _ = try lateStream.feed(100..<400, to: &late)   // frames 100-119 wait for the IDR at 120
        _ = try stream.feed(130..<400, to: &first)
        #expect(late.droppedWhileAwaitingKeyframe == 20)
        let lateSegments = late.segments.map { [$0.mediaSequence, Int($0.startTicks), Int($0.durationTicks)] }
        let firstSegments = first.segments.filter { $0.mediaSequence >= 2 }
            .map { [$0.mediaSequence, Int($0.startTicks), Int($0.durationTicks)] }
        #expect(lateSegments.count == 4)
        #expect(lateSegments == firstSegments)
        let lateParts = late.segments.flatMap { $0.parts.map { [$0.position.mediaSequence, $0.position.index, Int($0.startTicks)] } }
        let firstParts = first.segments.filter { $0.mediaSequence >= 2 }
            .flatMap { $0.parts.map { [$0.position.mediaSequence, $0.position.index, Int($0.startTicks)] } }
        #expect(lateParts == firstParts)
        // Audio older than the late rendition's first IDR is not in its first part.
        #expect(late.mediaPlaylist().mediaSequence == 2)
    }

    @Test("joining after the first IDR changes nothing")
    func joinAfterStartIsIgnored() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<70, to: &packager)
        packager.join(originTimestamp: 0, mediaSequence: 40)
        _ = try stream.feed(70..<200, to: &packager)
        #expect(packager.segments.map(\.mediaSequence) == [0, 1, 2])
        #expect(packager.origin == SyntheticStream.videoEpoch)
    }
}
