import CLiveFFmpeg

/// Opus (the WebRTC audio codec) to AAC-LC (what HLS players, Safari above all, decode),
/// through libavcodec: the native Opus decoder, then the native AAC encoder, both at
/// 48 kHz stereo, with an audio FIFO to regroup 960-sample Opus frames into 1024-sample
/// AAC frames.
///
/// Timing: output timestamps follow the input's RTP timestamps (48 kHz, RFC 7587 §4.1). A gap
/// in the input (lost packets, DTX) is filled with silence so audio stays in sync with video.
/// Confined to one thread; not Sendable.
public final class OpusToAACTranscoder {
    public let sampleRate: Int32 = 48_000
    public let channels: Int32 = 2
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var fifo: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var decoded: UnsafeMutablePointer<AVFrame>?
    private var chunk: UnsafeMutablePointer<AVFrame>?
    /// The 48 kHz timestamp of the first sample in the FIFO; nil before the first packet.
    private var fifoStart: Int64?
    /// The 48 kHz timestamp just after the last sample written to the FIFO.
    private var nextInput: Int64?
    /// Largest gap (samples) bridged with silence; a longer gap restarts the timeline.
    private let maxGap: Int64 = 48_000
    public private(set) var silenceInserted: Int64 = 0
    public private(set) var decodeErrors: Int = 0

    /// The AudioSpecificConfig (ISO 14496-3 §1.6.2.1) of the output, for `esds`.
    public private(set) var audioSpecificConfig: [UInt8] = []

    public init(bitrate: Int = 128_000) throws(FFmpegError) {
        av_log_set_level(AV_LOG_ERROR)  // the AAC encoder logs "Qavg" lines otherwise
        guard let opus = avcodec_find_decoder(AV_CODEC_ID_OPUS) else { throw FFmpegError("find Opus decoder", message: "not built in") }
        guard let aac = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw FFmpegError("find AAC encoder", message: "not built in") }
        decoder = avcodec_alloc_context3(opus)
        encoder = avcodec_alloc_context3(aac)
        packet = av_packet_alloc()
        decoded = av_frame_alloc()
        chunk = av_frame_alloc()
        guard let decoder, let encoder, packet != nil, decoded != nil, chunk != nil else {
            throw FFmpegError("allocate", message: "out of memory")
        }
        decoder.pointee.sample_rate = sampleRate
        av_channel_layout_default(&decoder.pointee.ch_layout, channels)
        try FFmpegError.check(avcodec_open2(decoder, opus, nil), "open Opus decoder")

        encoder.pointee.sample_rate = sampleRate
        encoder.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        encoder.pointee.bit_rate = Int64(bitrate)
        encoder.pointee.profile = FF_PROFILE_AAC_LOW
        encoder.pointee.time_base = AVRational(num: 1, den: sampleRate)
        av_channel_layout_default(&encoder.pointee.ch_layout, channels)
        // No ADTS and a global header: raw access units for fMP4, the config goes in esds.
        encoder.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        try FFmpegError.check(avcodec_open2(encoder, aac, nil), "open AAC encoder")
        if let extradata = encoder.pointee.extradata, encoder.pointee.extradata_size > 0 {
            audioSpecificConfig = Array(UnsafeBufferPointer(start: extradata, count: Int(encoder.pointee.extradata_size)))
        }
        fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, channels, 4096)
        guard fifo != nil else { throw FFmpegError("av_audio_fifo_alloc", message: "out of memory") }
    }

    deinit {
        avcodec_free_context(&decoder)
        avcodec_free_context(&encoder)
        av_packet_free(&packet)
        av_frame_free(&decoded)
        av_frame_free(&chunk)
        if let fifo { av_audio_fifo_free(fifo) }
    }

    /// Frame size of the AAC encoder (1024 for AAC-LC).
    public var frameSize: Int32 { encoder?.pointee.frame_size ?? 1024 }

    /// Decodes one Opus packet whose first sample is at `timestamp` (48 kHz) and returns the
    /// AAC frames that became complete.
    public func transcode(opusPacket: [UInt8], timestamp: Int64) throws(FFmpegError) -> [AACFrame] {
        guard let decoder, let packet, let decoded, !opusPacket.isEmpty else { return [] }
        try bridgeGap(to: timestamp)
        let status: Int32 = opusPacket.withUnsafeBufferPointer { bytes in
            guard av_new_packet(packet, Int32(bytes.count)) == 0 else { return -12 }
            packet.pointee.data.update(from: bytes.baseAddress!, count: bytes.count)
            packet.pointee.pts = timestamp
            defer { av_packet_unref(packet) }
            return avcodec_send_packet(decoder, packet)
        }
        if status < 0 {
            decodeErrors += 1  // a corrupt packet costs its 20 ms, not the stream
            return []
        }
        while avcodec_receive_frame(decoder, decoded) == 0 {
            defer { av_frame_unref(decoded) }
            let samples = decoded.pointee.nb_samples
            let written = av_audio_fifo_write(fifo, Self.planes(decoded), samples)
            try FFmpegError.check(written, "av_audio_fifo_write")
            if fifoStart == nil { fifoStart = timestamp }
            nextInput = (nextInput ?? timestamp) + Int64(samples)
        }
        return try drain(final: false)
    }

    /// Encodes what is left (padded with silence) at the end of the stream.
    public func finish() throws(FFmpegError) -> [AACFrame] {
        var frames = try drain(final: true)
        guard let encoder, let packet else { return frames }
        avcodec_send_frame(encoder, nil)
        while avcodec_receive_packet(encoder, packet) == 0 {
            frames.append(AACFrame(bytes: Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))),
                                   pts: packet.pointee.pts))
            av_packet_unref(packet)
        }
        return frames
    }

    /// A frame's planes as the FIFO API takes them (`void * const *`).
    private static func planes(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        UnsafeMutableRawPointer(frame.pointee.extended_data).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// Fills a gap between the last decoded sample and `timestamp` with silence; restarts the
    /// timeline on a backwards jump or a gap too long to bridge.
    private func bridgeGap(to timestamp: Int64) throws(FFmpegError) {
        guard let expected = nextInput else { return }
        let gap = timestamp - expected
        if gap <= 0 { return }
        if gap > maxGap {
            // Drop the remainder and start over at the new position.
            av_audio_fifo_reset(fifo)
            fifoStart = nil
            nextInput = nil
            return
        }
        try writeSilence(Int32(gap))
        silenceInserted += gap
        nextInput = timestamp
    }

    private func writeSilence(_ count: Int32) throws(FFmpegError) {
        guard let chunk else { return }
        chunk.pointee.nb_samples = count
        chunk.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        av_channel_layout_default(&chunk.pointee.ch_layout, channels)
        try FFmpegError.check(av_frame_get_buffer(chunk, 0), "av_frame_get_buffer")
        defer { av_frame_unref(chunk) }
        av_samples_set_silence(chunk.pointee.extended_data, 0, count, channels, AV_SAMPLE_FMT_FLTP)
        let written = av_audio_fifo_write(fifo, Self.planes(chunk), count)
        try FFmpegError.check(written, "av_audio_fifo_write(silence)")
    }

    /// Encodes every full 1024-sample chunk in the FIFO (and the padded rest when `final`).
    private func drain(final: Bool) throws(FFmpegError) -> [AACFrame] {
        guard let encoder, let chunk, let packet, var start = fifoStart else { return [] }
        var frames: [AACFrame] = []
        let size = frameSize
        while av_audio_fifo_size(fifo) >= size || (final && av_audio_fifo_size(fifo) > 0) {
            let available = min(av_audio_fifo_size(fifo), size)
            chunk.pointee.nb_samples = size
            chunk.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            chunk.pointee.sample_rate = sampleRate
            av_channel_layout_default(&chunk.pointee.ch_layout, channels)
            try FFmpegError.check(av_frame_get_buffer(chunk, 0), "av_frame_get_buffer")
            av_samples_set_silence(chunk.pointee.extended_data, 0, size, channels, AV_SAMPLE_FMT_FLTP)
            let read = av_audio_fifo_read(fifo, Self.planes(chunk), available)
            chunk.pointee.pts = start
            start += Int64(size)
            let sent = avcodec_send_frame(encoder, chunk)
            av_frame_unref(chunk)
            try FFmpegError.check(read < 0 ? read : sent, "encode AAC")
            while avcodec_receive_packet(encoder, packet) == 0 {
                frames.append(AACFrame(bytes: Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))),
                                       pts: packet.pointee.pts))
                av_packet_unref(packet)
            }
        }
        fifoStart = start
        return frames
    }
}
