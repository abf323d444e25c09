import OnAirMedia
import OnAirRateControl

/// Opens the input and builds the encoders for it: sizes and rates default to the input's own
/// (files), or 1280x720 at 30 fps (test pattern, camera); the H.264 level follows from them.
enum MediaSetup {
    static func pipeline(_ settings: BroadcastSettings) throws(BroadcastError) -> MediaPipeline {
        let source: BroadcastSource
        let fps: Int
        switch settings.input {
        case .testPattern:
            let size = settings.size ?? settings.liveSize
            fps = settings.framesPerSecond ?? settings.liveFramesPerSecond
            source = TestPatternSource(width: size.width, height: size.height, framesPerSecond: fps)
        case .file(let path, let loop):
            let input = try open(.file(path), audio: settings.audio)
            let native = input.videoSize ?? (1280, 720)
            let size = settings.size ?? (native.width & ~1, native.height & ~1)
            fps = settings.framesPerSecond ?? max(1, Int((input.videoFramesPerSecond ?? 30).rounded()))
            let name = path.split(separator: "/").last.map(String.init) ?? path
            source = DecodedSource(input: input, width: size.width, height: size.height, framesPerSecond: fps, loops: loop,
                                   summary: "\(name) \(size.width)x\(size.height)@\(fps)" + (loop ? " (loop)" : "")
                                       + (input.hasAudio ? "" : ", no audio track (sending silence)"))
        case .camera(let device):
            let size = settings.size ?? settings.liveSize
            fps = settings.framesPerSecond ?? settings.liveFramesPerSecond
            let input = try open(.camera(device: device, width: size.width, height: size.height, framesPerSecond: fps),
                                 audio: false)
            source = DecodedSource(input: input, width: size.width, height: size.height, framesPerSecond: fps, loops: false,
                                   summary: "camera \(device) \(size.width)x\(size.height)@\(fps)")
        }
        let gop = settings.gop ?? fps * 2
        let ladder = settings.simulcast ? SimulcastLadder(width: source.width, height: source.height,
                                                          lowerBitrates: settings.simulcastBitrates) : SimulcastLadder.single
        var layers: [EncodingLayer] = []
        do {
            for (index, rung) in ladder.rungs.enumerated() {
                let size = ladder.size(of: index, width: source.width, height: source.height)
                var encoderSettings = H264EncoderSettings(
                    width: size.width, height: size.height, framesPerSecond: fps,
                    bitrate: index == 0 ? settings.videoBitrate : rung.bitrate, vbvBufferSeconds: settings.vbvBufferSeconds,
                    // Lower layers' IDRs come only with the top layer's (forced in step by the pipeline).
                    gop: index == 0 ? gop : gop * 100, preset: settings.preset)
                encoderSettings.levelIDC = encoderSettings.minimumLevelIDC
                let scaler = index == 0 ? nil : try PictureScaler(from: source.width, source.height, to: size.width, size.height)
                layers.append(EncodingLayer(rid: rung.rid, encoder: try H264Encoder(encoderSettings), scaler: scaler,
                                            nominalBitrate: rung.bitrate))
            }
        } catch {
            throw BroadcastError(.usage, error.description)
        }
        let lower = ladder.rungs.dropFirst().map(\.bitrate)
        let allocator = SimulcastAllocator(lowerBitrates: lower, topMinimum: lower.first ?? 0,
                                           topMaximum: settings.maximumBitrate)
        var opus: OpusAudioEncoder?
        if settings.audio {
            do {
                opus = try OpusAudioEncoder(bitrate: settings.audioBitrate)
            } catch {
                throw BroadcastError(.usage, "\(error.description) (check --audio-bitrate: 6k...510k)")
            }
        }
        let pipeline = MediaPipeline(source: source, layers: layers, allocator: allocator, opus: opus, framesPerSecond: fps)
        pipeline.setVideoBitrate(settings.videoBitrate + allocator.lowerTotal)
        return pipeline
    }

    private static func open(_ source: MediaInputSource, audio: Bool) throws(BroadcastError) -> MediaInput {
        do {
            return try MediaInput(source, wantAudio: audio)
        } catch {
            throw BroadcastError(.usage, error.description)
        }
    }
}
