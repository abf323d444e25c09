import CLiveX264

/// H.264 through libx264 with live settings: `tune=zerolatency` (no lookahead, no frame
/// threads, no B-frames: a picture's NAL units come out of the same `encode` call), SPS/PPS
/// repeated before every IDR (a viewer joining at any keyframe can decode, RFC 6184 §8.4),
/// Annex B output split into NAL units, ABR with a VBV cap so frames stay near the target,
/// IDRs only on the GOP or on request (scenecut off).
///
/// Not thread-safe: one owner calls `encode` (x264 parallelises inside).
public final class H264Encoder {
    public private(set) var settings: H264EncoderSettings
    private var parameters = x264_param_t()
    private let encoder: OpaquePointer
    private var picture = x264_picture_t()
    private var output = x264_picture_t()
    private var nalUnits: [UnsafeBufferPointer<UInt8>] = []
    /// Frames encoded and IDRs among them.
    public private(set) var framesEncoded: UInt64 = 0
    public private(set) var keyframesEncoded: UInt64 = 0

    public init(_ settings: H264EncoderSettings) throws(H264EncoderError) {
        self.settings = settings
        guard x264_param_default_preset(&parameters, settings.preset, "zerolatency") == 0 else {
            throw H264EncoderError("unknown x264 preset '\(settings.preset)' (use ultrafast, superfast, veryfast, faster, fast, medium, slow)")
        }
        parameters.i_width = Int32(settings.width)
        parameters.i_height = Int32(settings.height)
        parameters.i_csp = X264_CSP_I420
        parameters.i_fps_num = UInt32(settings.framesPerSecond)
        parameters.i_fps_den = 1
        // Timestamps in the RTP video clock, so pts in = pts out with no conversion.
        parameters.i_timebase_num = 1
        parameters.i_timebase_den = 90_000
        parameters.i_threads = Int32(settings.threads)
        parameters.i_level_idc = Int32(settings.levelIDC)
        parameters.i_keyint_max = Int32(settings.gop)
        parameters.i_keyint_min = Int32(min(settings.gop, max(1, settings.framesPerSecond)))
        // No scene-cut IDRs: keyframes come on the GOP or on request (PLI/FIR) only, so their
        // bursts are predictable for the VBV and the network (as WebRTC encoders do).
        parameters.i_scenecut_threshold = 0
        parameters.b_repeat_headers = 1
        parameters.b_annexb = 1
        parameters.i_log_level = X264_LOG_ERROR
        Self.applyRate(settings, to: &parameters)
        guard x264_param_apply_profile(&parameters, settings.profile) == 0 else {
            throw H264EncoderError("x264 cannot apply profile '\(settings.profile)' (use baseline, main or high)")
        }
        guard let encoder = clive_x264_encoder_open(&parameters) else {
            throw H264EncoderError("x264_encoder_open failed for \(settings.width)x\(settings.height)@\(settings.framesPerSecond) level \(settings.levelIDC)")
        }
        self.encoder = encoder
        x264_picture_init(&picture)
        picture.img.i_csp = X264_CSP_I420
        picture.img.i_plane = 3
        nalUnits.reserveCapacity(16)
    }

    deinit { x264_encoder_close(encoder) }

    private static func applyRate(_ settings: H264EncoderSettings, to parameters: inout x264_param_t) {
        let kilobits = Int32(max(1, settings.bitrate / 1000))
        parameters.rc.i_rc_method = X264_RC_ABR
        parameters.rc.i_bitrate = kilobits
        parameters.rc.i_vbv_max_bitrate = kilobits
        parameters.rc.i_vbv_buffer_size = Int32(max(1, Double(kilobits) * settings.vbvBufferSeconds))
    }

    /// Changes the bitrate on the fly (x264_encoder_reconfig: rate control only, no new SPS).
    public func reconfigure(bitrate: Int) {
        guard bitrate != settings.bitrate else { return }
        settings.bitrate = bitrate
        Self.applyRate(settings, to: &parameters)
        _ = x264_encoder_reconfig(encoder, &parameters)
    }

    /// Encodes one picture; `forceKeyframe` makes it an IDR (a PLI/FIR answer, RFC 4585 §6.3.1).
    /// The returned NAL units stay valid until the next call. nil when x264 produced nothing.
    public func encode(_ frame: VideoFrameBuffer, forceKeyframe: Bool) throws(H264EncoderError) -> EncodedVideoFrame? {
        precondition(frame.width == settings.width && frame.height == settings.height, "picture size differs from the encoder's")
        picture.i_pts = frame.timestamp90kHz
        picture.i_type = forceKeyframe ? X264_TYPE_IDR : X264_TYPE_AUTO
        picture.img.plane.0 = frame.luma
        picture.img.plane.1 = frame.chromaU
        picture.img.plane.2 = frame.chromaV
        picture.img.i_stride.0 = Int32(frame.lumaStride)
        picture.img.i_stride.1 = Int32(frame.chromaStride)
        picture.img.i_stride.2 = Int32(frame.chromaStride)
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let size = x264_encoder_encode(encoder, &nals, &count, &picture, &output)
        guard size >= 0 else { throw H264EncoderError("x264_encoder_encode failed (\(size))") }
        guard size > 0, let nals else { return nil }
        nalUnits.removeAll(keepingCapacity: true)
        var bytes = 0
        for index in 0..<Int(count) {
            let nal = nals[index]
            // Annex B: each payload starts with a 3- or 4-byte start code; the packetizer wants
            // bare NAL units (RFC 6184 §5.6).
            let prefix = nal.b_long_startcode != 0 ? 4 : 3
            let length = Int(nal.i_payload) - prefix
            guard length > 0, let payload = nal.p_payload else { continue }
            nalUnits.append(UnsafeBufferPointer(start: payload + prefix, count: length))
            bytes += length
        }
        let keyframe = output.b_keyframe != 0
        framesEncoded += 1
        if keyframe { keyframesEncoded += 1 }
        return EncodedVideoFrame(nalUnits: nalUnits, timestamp90kHz: output.i_pts, isKeyframe: keyframe, byteCount: bytes)
    }
}
