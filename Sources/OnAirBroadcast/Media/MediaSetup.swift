import OnAirMedia

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
        var encoderSettings = H264EncoderSettings(width: source.width, height: source.height, framesPerSecond: fps,
                                                  bitrate: settings.videoBitrate, vbvBufferSeconds: settings.vbvBufferSeconds,
                                                  gop: settings.gop ?? fps * 2, preset: settings.preset)
        encoderSettings.levelIDC = encoderSettings.minimumLevelIDC
        let encoder: H264Encoder
        do {
            encoder = try H264Encoder(encoderSettings)
        } catch {
            throw BroadcastError(.usage, error.description)
        }
        var opus: OpusAudioEncoder?
        if settings.audio {
            do {
                opus = try OpusAudioEncoder(bitrate: settings.audioBitrate)
            } catch {
                throw BroadcastError(.usage, "\(error.description) (check --audio-bitrate: 6k...510k)")
            }
        }
        return MediaPipeline(source: source, encoder: encoder, opus: opus, framesPerSecond: fps)
    }

    private static func open(_ source: MediaInputSource, audio: Bool) throws(BroadcastError) -> MediaInput {
        do {
            return try MediaInput(source, wantAudio: audio)
        } catch {
            throw BroadcastError(.usage, error.description)
        }
    }
}
