import Foundation
import Testing

@testable import OnAirHLS

enum M3U8Parser {
    static let isInstalled = (try? run("python3", ["-c", "import m3u8"]).status) == 0
}

/// The packager's playlists read by an outside parser: PyPI `m3u8` (the parser the issue
/// names for conformance). Skipped, and reported as skipped, where it is not installed
/// (`pip install m3u8`).
@Suite("Playlists read by PyPI m3u8", .enabled(if: M3U8Parser.isInstalled))
struct OutsideParserTests {
    /// Prints what m3u8 understood, as JSON.
    static let script = """
        import json, sys, m3u8
        pl = m3u8.loads(sys.stdin.read())
        sc = pl.server_control
        print(json.dumps({
          "version": pl.version, "target": pl.target_duration, "sequence": pl.media_sequence,
          "independent": pl.is_independent_segments, "endlist": pl.is_endlist,
          "block": sc.can_block_reload, "partHoldBack": sc.part_hold_back, "holdBack": sc.hold_back,
          "skipUntil": sc.can_skip_until, "partTarget": pl.part_inf.part_target,
          "map": pl.segments[0].init_section.uri if pl.segments and pl.segments[0].init_section else None,
          "skipped": pl.skip.skipped_segments if pl.skip else 0,
          "hint": [pl.preload_hint.hint_type, pl.preload_hint.uri] if pl.preload_hint else None,
          "segments": [{"uri": s.uri, "duration": s.duration,
                        "pdt": s.program_date_time.isoformat() if s.program_date_time else None,
                        "parts": [[p.uri, p.duration, p.independent == "YES"] for p in s.parts]} for s in pl.segments]}))
        """

    struct Parsed: Decodable {
        struct Segment: Decodable {
            var uri: String?
            var duration: Double?
            var pdt: String?
            var parts: [[Part]]
        }
        enum Part: Decodable {
            case text(String), number(Double), flag(Bool)
            init(from decoder: Decoder) throws {
                let c = try decoder.singleValueContainer()
                if let b = try? c.decode(Bool.self) { self = .flag(b) }
                else if let d = try? c.decode(Double.self) { self = .number(d) }
                else { self = .text(try c.decode(String.self)) }
            }
        }
        var version: Int, target: Int, sequence: Int, independent: Bool, endlist: Bool
        var block: String?, partHoldBack: Double?, holdBack: Double?, skipUntil: Double?, partTarget: Double?
        var map: String?, skipped: Int, hint: [String]?
        var segments: [Segment]
    }

    func parse(_ text: String) throws -> Parsed {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onair-m3u8-\(UUID().uuidString).m3u8")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try run("sh", ["-c", "python3 -c \"$0\" < \"$1\"", Self.script, file.path])
        #expect(output.status == 0, "m3u8: \(output.stderr)")
        return try JSONDecoder().decode(Parsed.self, from: Data(output.stdout.utf8))
    }

    static func seconds(_ duration: Duration) -> Double { Double(MediaTime.microseconds(duration)) / 1e6 }

    @Test func liveFullAndDeltaAndEndedPlaylists() throws {
        var packager = try SyntheticStream.packager()
        packager.anchorProgramDateTime(unixMilliseconds: 1_700_000_000_000, mediaTimestamp: SyntheticStream.videoEpoch)
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<1200, to: &packager)
        let ours = packager.mediaPlaylist()
        let parsed = try parse(packager.renderMediaPlaylist())

        #expect(parsed.version == 6 && parsed.target == ours.targetDuration && parsed.sequence == ours.mediaSequence)
        #expect(parsed.independent && !parsed.endlist && parsed.block == "YES" && parsed.map == "init.mp4")
        #expect(try #require(parsed.holdBack) >= Double(3 * parsed.target))
        #expect(try #require(parsed.skipUntil) >= Double(6 * parsed.target))
        let partTarget = try #require(parsed.partTarget)
        #expect(try #require(parsed.partHoldBack) >= 3 * partTarget - 1e-9)
        #expect(parsed.hint == ["PART", "part\(packager.segmentInProgress!.parts.last!.number + 1).m4s"])

        // Complete segments, then m3u8's URI-less entry holding the trailing parts.
        #expect(parsed.segments.count == ours.segments.count + 1)
        for (theirs, mine) in zip(parsed.segments, ours.segments) {
            #expect(theirs.uri == mine.uri)
            #expect(abs((theirs.duration ?? 0) - Self.seconds(mine.duration)) < 1e-6)
            #expect(theirs.pdt == ProgramDateTime.format(unixMilliseconds: mine.programDateTime!)
                .replacingOccurrences(of: ".000Z", with: "+00:00"))
            #expect(theirs.parts.count == mine.parts.count)
        }
        let trailing = try #require(parsed.segments.last)
        #expect(trailing.uri == nil && trailing.parts.count == ours.trailingParts.count)
        for (theirs, mine) in zip(parsed.segments.flatMap(\.parts), (ours.segments.flatMap(\.parts) + ours.trailingParts)) {
            guard case .text(let uri) = theirs[0], case .number(let duration) = theirs[1], case .flag(let independent) = theirs[2]
            else { Issue.record("part \(theirs)"); continue }
            #expect(uri == mine.uri && independent == mine.isIndependent)
            #expect(duration <= partTarget + 1e-9)
            #expect(abs(duration - Self.seconds(mine.duration)) < 1e-6)
        }

        let delta = try parse(packager.renderMediaPlaylist(deltaUpdate: true))
        #expect(delta.version == 9 && delta.skipped == ours.skippableSegmentCount && delta.skipped > 0)
        #expect(delta.segments.compactMap(\.uri) == ours.segments.dropFirst(delta.skipped).map(\.uri))

        _ = packager.finish()
        let ended = try parse(packager.renderMediaPlaylist())
        #expect(ended.endlist && ended.hint == nil && ended.segments.last?.uri == "seg19.m4s")
    }
}
