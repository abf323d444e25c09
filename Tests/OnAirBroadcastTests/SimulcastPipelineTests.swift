import Testing

@testable import OnAirBroadcast

/// `--simulcast` with real x264 encoders on the test pattern: which layers encode, at what
/// bitrate, for what the WHIP answer accepted.
@Suite("Simulcast pipeline: the accepted layers share the bitrate")
struct SimulcastPipelineTests {
    func pipeline() throws -> MediaPipeline {
        var settings = BroadcastSettings(room: "42", whipURL: "http://127.0.0.1:1/whip/42", videoBitrate: 2_500_000,
                                         maximumBitrate: 2_500_000, preset: "ultrafast", audio: false)
        settings.size = (1280, 720)
        settings.simulcast = true
        return try MediaSetup.pipeline(settings)
    }

    @Test("all layers accepted: 1 Mbit/s keeps h and q, the top layer pauses; frames come from h and q only")
    func everyLayerAccepted() throws {
        let pipeline = try pipeline()
        #expect(pipeline.layers.map(\.rid) == ["f", "h", "q"])
        #expect(pipeline.layers.map { $0.encoder.settings.width } == [1280, 640, 320])
        pipeline.accept(rids: ["f", "h", "q"])
        pipeline.setVideoBitrate(3_250_000)
        #expect(pipeline.activeLayerNames == "f h q")
        pipeline.setVideoBitrate(1_000_000)
        #expect(pipeline.activeLayerNames == "h q" && pipeline.videoBitrate == 750_000)
        pipeline.start(now: Clocks.monotonic())
        let picture = try #require(try pipeline.encodeVideo(forceKeyframe: true))
        #expect(picture.frames.map(\.layer) == [1, 2] && picture.isKeyframe)
    }

    @Test("an answer without simulcast: the full picture alone gets the whole bitrate, even a low one")
    func noSimulcastInTheAnswer() throws {
        let pipeline = try pipeline()
        pipeline.accept(rids: [])
        pipeline.setVideoBitrate(1_000_000)
        #expect(pipeline.activeLayerNames == "f" && pipeline.videoBitrate == 1_000_000)
        pipeline.setVideoBitrate(400_000)
        #expect(pipeline.activeLayerNames == "f" && pipeline.videoBitrate == 400_000)
        pipeline.start(now: Clocks.monotonic())
        let picture = try #require(try pipeline.encodeVideo(forceKeyframe: true))
        #expect(picture.frames.map(\.layer) == [0])
    }

    @Test("an answer that takes h and q: h is the top of what is sent")
    func partialAnswer() throws {
        let pipeline = try pipeline()
        pipeline.accept(rids: ["h", "q"])
        pipeline.setVideoBitrate(2_000_000)
        #expect(pipeline.activeLayerNames == "h q" && pipeline.layers[1].bitrate == 1_850_000)
        #expect(!pipeline.layers[0].isActive)
    }
}
