import Testing

@testable import OnAirHLS

/// Where parts and segments are cut (RFC 8216bis §4.4.4.9, §6.2.1) and what goes in them.
@Suite("LL-HLS packager: parts and segments")
struct PackagerSegmentationTests {
    static let partTarget = Duration.milliseconds(333)

    /// §4.4.4.9: every part ≤ PART-TARGET; every part that is neither INDEPENDENT nor last
    /// in its segment ≥ 85% of it. Segments start with an IDR and last the 2 s GOP.
    @Test func partsAndSegmentsFollowTheTargets() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<600, to: &packager)
        let segments = packager.segments
        #expect(segments.map(\.mediaSequence) == Array(0..<9))
        for segment in segments {
            #expect(segment.duration == .seconds(2))
            #expect(segment.parts.first?.isIndependent == true)
            #expect(segment.parts.dropFirst().allSatisfy { !$0.isIndependent })
            #expect(segment.bytes == segment.parts.flatMap { Array($0.bytes) })
            for (index, part) in segment.parts.enumerated() {
                #expect(part.duration <= Self.partTarget)
                if !part.isIndependent, index != segment.parts.count - 1 {
                    #expect(part.duration >= Self.partTarget * 0.85, "part \(part.number)")
                }
            }
            #expect(segment.parts.map(\.duration) == Array(repeating: .milliseconds(300), count: 6) + [.milliseconds(200)])
        }
    }

    /// The video timeline has no holes and every IDR is a sync sample; the audio runs
    /// follow each other exactly (1024 samples a frame) and no audio frame is lost.
    @Test func fragmentsCarryContinuousTimelines() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        _ = try stream.feed(0..<300, to: &packager)
        _ = packager.finish()
        var videoTime: UInt64 = 0
        var audioTime: UInt64? = nil
        var audioFrames = 0
        var pictures = 0
        var sequence: UInt32 = 0
        for part in packager.segments.flatMap(\.parts) {
            let walker = try BoxWalker(Array(part.bytes))
            let mfhd = walker.uint32(at: walker.first("moof/mfhd")!.start + 12)
            #expect(mfhd == sequence + 1)
            sequence = mfhd
            let runs = try part.runs()
            let video = runs[0]
            #expect(video.trackID == 1)
            #expect(video.baseMediaDecodeTime == videoTime)
            for (offset, sample) in video.samples.enumerated() {
                let frame = pictures + offset
                #expect((sample.flags == 0x0200_0000) == (frame % 60 == 0), "frame \(frame)")
                #expect(sample.duration == 3000)
            }
            pictures += video.samples.count
            videoTime += video.samples.reduce(0) { $0 + UInt64($1.duration) }
            if runs.count > 1 {
                let audio = runs[1]
                #expect(audio.trackID == 2)
                if let expected = audioTime { #expect(audio.baseMediaDecodeTime == expected) }
                else { #expect(audio.baseMediaDecodeTime == 0) }
                #expect(audio.samples.allSatisfy { $0.duration == 1024 && $0.size == 20 && $0.flags == 0x0200_0000 })
                audioTime = audio.baseMediaDecodeTime + UInt64(audio.samples.count * 1024)
                audioFrames += audio.samples.count
            }
        }
        #expect(pictures == 300)
        #expect(audioFrames == stream.nextAudio - packager.droppedAudioFrames)
        #expect(packager.droppedAudioFrames == 0)
    }

    /// A part is out the moment the frame that fills it arrives (not one frame later):
    /// frames 0-8 make part 0, published by the call that adds frame 8.
    @Test func partIsPublishedWithItsLastFrame() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: 60)
        var publishedAt: [Int: Int] = [:]
        for frame in 0..<30 {
            for case .partPublished(let number, _) in try stream.feedFrame(frame, to: &packager) { publishedAt[number] = frame }
        }
        #expect(publishedAt == [0: 8, 1: 17, 2: 26])
    }

    /// Longer GOPs make longer segments (GOP aligned); EXT-X-TARGETDURATION follows so that
    /// no EXTINF rounds above it (§4.4.3.1), and the packager asks for a keyframe once a
    /// segment passes its target without one.
    @Test(arguments: [(90, 3, "3.00000"), (75, 3, "2.50000"), (66, 2, "2.20000")])
    func longGOPsMakeLongSegments(gop: Int, targetDuration: Int, extinf: String) throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframeEvery: gop)
        var wantedAt: [Int] = []
        for frame in 0..<(gop * 4) {
            if try stream.feedFrame(frame, to: &packager).contains(.keyframeWanted) { wantedAt.append(frame) }
        }
        #expect(packager.targetDuration == targetDuration)
        #expect(packager.renderMediaPlaylist().contains("#EXTINF:\(extinf),\nseg0.m4s"))
        #expect(packager.renderMediaPlaylist().contains("#EXT-X-TARGETDURATION:\(targetDuration)\n"))
        #expect(wantedAt == (0..<4).map { $0 * gop + 60 })
    }

    /// IDRs inside a segment: at frame 9 the previous part has just closed, so the IDR
    /// opens a part; at 12 the open part (9-11) is INDEPENDENT, exempt from the 85% floor,
    /// so it closes; at 40 the open part (39) is short and not independent, so the IDR goes
    /// into it as a sync sample. Frame 60 is past 2 s: a new segment.
    @Test func idrsInsideASegment() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframes: [0, 9, 12, 40, 60])
        _ = try stream.feed(0..<70, to: &packager)
        let segment = try #require(packager.segments.first)
        let starts = try segment.parts.map { part -> Int in
            Int(try part.runs()[0].baseMediaDecodeTime / 3000)
        }
        #expect(starts == [0, 9, 12, 21, 30, 39, 48, 57])
        #expect(segment.parts.map(\.isIndependent) == [true, true, true, false, false, false, false, false])
        let withIDR = try segment.parts[5].runs()[0]
        #expect(withIDR.samples.map(\.flags) == [0x0101_0000, 0x0200_0000] + Array(repeating: 0x0101_0000, count: 7))
        #expect(segment.duration == .seconds(2))
    }

    @Test func framesBeforeTheFirstIDRAreDropped() throws {
        var packager = try SyntheticStream.packager()
        var stream = SyntheticStream(keyframes: [5, 65])
        let early = try stream.feed(0..<5, to: &packager)
        #expect(early.isEmpty)
        #expect(packager.droppedWhileAwaitingKeyframe == 5)
        #expect(!packager.hasContent)
        _ = try stream.feed(5..<30, to: &packager)
        let first = try #require(packager.segmentInProgress?.parts.first)
        let runs = try first.runs()
        #expect(runs[0].baseMediaDecodeTime == 0)
        #expect(runs[0].samples.first?.flags == 0x0200_0000)
        // Audio from before the IDR (frame 5 is at 1/6 s = 8000 samples) is dropped; the
        // first kept frame starts at 8192 samples, 192 after the video.
        #expect(runs[1].baseMediaDecodeTime == 192)
        #expect(packager.droppedAudioFrames == 8)
    }

    @Test func timestampsMustIncrease() throws {
        var packager = try SyntheticStream.packager()
        _ = try packager.append(SyntheticStream.picture(0, keyframe: true))
        _ = try packager.append(SyntheticStream.picture(1, keyframe: false))
        #expect(throws: HLSPackagerError.timestampNotIncreasing(previous: SyntheticStream.videoEpoch + 3000,
                                                                 received: SyntheticStream.videoEpoch + 3000)) {
            try packager.append(SyntheticStream.picture(1, keyframe: false))
        }
        _ = try packager.append(AudioFrame(data: [1], timestamp: 100))
        #expect(throws: HLSPackagerError.self) { try packager.append(AudioFrame(data: [1], timestamp: 100)) }
        _ = try packager.append(SyntheticStream.picture(2, keyframe: false))
    }

    /// Without video the audio leads: parts of 15 frames (320 ms ≤ 333 ms), all
    /// independent; a segment ends at the first frame at or after 2 s (frame 94).
    @Test func audioOnly() throws {
        var packager = try LLHLSPackager(tracks: HLSTrackConfiguration(
            video: nil, audio: AudioSpecificConfig(sampleRate: 48_000, channelConfiguration: 2)))
        for index in 0..<400 {
            _ = try packager.append(AudioFrame(data: [0xA0, UInt8(index & 0xFF)], timestamp: 777 + Int64(index) * 1024))
        }
        let segment = try #require(packager.segments.first)
        #expect(segment.parts.allSatisfy { $0.isIndependent })
        #expect(segment.parts.dropLast().allSatisfy { $0.duration == .nanoseconds(320_000_000) })
        #expect(segment.duration == MediaTime.duration(ticks: 94 * 1024, timescale: 48_000))
        #expect(packager.renderMediaPlaylist().contains("#EXTINF:2.00533,\nseg0.m4s"))
        #expect(packager.multivariantPlaylist().render().contains("CODECS=\"mp4a.40.2\"\n"))
        #expect(try segment.parts[0].runs().map(\.trackID) == [1])
    }

    @Test func configurationIsChecked() throws {
        let tracks = try SyntheticStream.tracks()
        #expect(throws: HLSPackagerError.self) {
            try LLHLSPackager(configuration: LLHLSConfiguration(partTarget: .seconds(3)), tracks: tracks)
        }
        #expect(throws: HLSPackagerError.self) {
            try LLHLSPackager(configuration: LLHLSConfiguration(partTarget: .zero), tracks: tracks)
        }
    }
}
