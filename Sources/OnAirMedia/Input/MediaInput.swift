import CLiveFFmpeg
import OnAirTranscode

/// Reads a media file or a V4L2 camera through libavformat/libavdevice, decodes with libavcodec
/// and hands out pictures already scaled to I420 at the encoder's size (libswscale) and audio
/// already at 48 kHz stereo s16 (libswresample), one decoder step at a time.
///
/// Timestamps are rebased so the input starts at 0 (90 kHz for video); ``rewind()`` lets
/// `--loop` start over, the caller keeping the timeline continuous. Not thread-safe.
public final class MediaInput {
    public let source: MediaInputSource
    /// The first video stream's size and rate as the input declares them.
    public private(set) var videoSize: (width: Int, height: Int)?
    public private(set) var videoFramesPerSecond: Double?
    public private(set) var hasAudio = false
    /// Seconds, when the container knows (files).
    public private(set) var duration: Double?
    /// Whether reads never block (cameras): `.notReady` then means "no frame yet".
    public let isLive: Bool

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var videoDecoder: UnsafeMutablePointer<AVCodecContext>?
    private var audioDecoder: UnsafeMutablePointer<AVCodecContext>?
    private var videoStream: Int32 = -1
    private var audioStream: Int32 = -1
    private var videoTimeBase = AVRational(num: 1, den: 90_000)
    private var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
    private var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
    private let scaler = VideoScaler()
    private let resampler = AudioResampler()
    private var startPTS: Int64?
    private var draining = false
    private var decodersDrained = (video: false, audio: false)

    public init(_ source: MediaInputSource, wantAudio: Bool = true) throws(MediaInputError) {
        self.source = source
        avdevice_register_all()
        // We report failures ourselves, in words that say what to fix; libav's own lines (and a
        // damaged file's per-frame complaints) would only bury them.
        av_log_set_level(AV_LOG_FATAL)
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        let url: String
        var inputFormat: UnsafePointer<AVInputFormat>?
        switch source {
        case .file(let path):
            url = path
            isLive = false
        case .camera(let device, let width, let height, let rate):
            url = device
            isLive = true
            inputFormat = av_find_input_format("video4linux2")
            guard inputFormat != nil else {
                throw MediaInputError(.cannotOpen, "this FFmpeg has no video4linux2 input (libavdevice without V4L2)")
            }
            av_dict_set(&options, "video_size", "\(width)x\(height)", 0)
            av_dict_set(&options, "framerate", "\(rate)", 0)
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        let opened = avformat_open_input(&context, url, inputFormat, &options)
        guard opened >= 0, let context else {
            let reason = FFmpegError("open", code: opened).message
            if isLive {
                throw MediaInputError(.cannotOpen, "cannot open camera \(url): \(reason) (is a camera attached? list them with `ls /dev/video*`)")
            }
            throw MediaInputError(.cannotOpen, "cannot open input '\(url)': \(reason)")
        }
        format = context
        if isLive { context.pointee.flags |= AVFMT_FLAG_NONBLOCK }
        // FFmpeg's "tty" demuxer renders any text file as ANSI art video: a text file is not
        // what anyone means to broadcast.
        if let name = context.pointee.iformat?.pointee.name, String(cString: name) == "tty" {
            throw MediaInputError(.noMedia, "'\(url)' is a text file, not a media file (give --input a video file)")
        }
        if avformat_find_stream_info(context, nil) < 0 {
            throw MediaInputError(.noMedia, "'\(url)' is not a media file FFmpeg can read (no stream information)")
        }
        if context.pointee.duration > 0 { duration = Double(context.pointee.duration) / Double(AV_TIME_BASE) }
        try openVideo(context, url: url)
        if wantAudio { try openAudio(context) }
        guard videoDecoder != nil else {
            throw MediaInputError(.noMedia, "'\(url)' has no video stream that FFmpeg can decode (is it a media file?)")
        }
    }

    deinit {
        avcodec_free_context(&videoDecoder)
        avcodec_free_context(&audioDecoder)
        avformat_close_input(&format)
        av_packet_free(&packet)
        av_frame_free(&frame)
    }

    private func openVideo(_ context: UnsafeMutablePointer<AVFormatContext>, url: String) throws(MediaInputError) {
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = context.pointee.streams[Int(index)] else { return }
        let decoder = try openDecoder(stream, what: "video")
        videoStream = index
        videoDecoder = decoder
        videoTimeBase = stream.pointee.time_base
        videoSize = (Int(decoder.pointee.width), Int(decoder.pointee.height))
        let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        if rate.num > 0 && rate.den > 0 { videoFramesPerSecond = Double(rate.num) / Double(rate.den) }
    }

    private func openAudio(_ context: UnsafeMutablePointer<AVFormatContext>) throws(MediaInputError) {
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let stream = context.pointee.streams[Int(index)] else { return }
        audioDecoder = try openDecoder(stream, what: "audio")
        audioStream = index
        hasAudio = true
    }

    private func openDecoder(_ stream: UnsafeMutablePointer<AVStream>, what: String) throws(MediaInputError)
        -> UnsafeMutablePointer<AVCodecContext> {
        let parameters = stream.pointee.codecpar!
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw MediaInputError(.noMedia, "no decoder for the \(what) codec '\(name)' in this FFmpeg")
        }
        guard let decoder = avcodec_alloc_context3(codec) else { throw MediaInputError(.decode, "out of memory") }
        var owned: UnsafeMutablePointer<AVCodecContext>? = decoder
        guard avcodec_parameters_to_context(decoder, parameters) >= 0 else {
            avcodec_free_context(&owned)
            throw MediaInputError(.noMedia, "cannot read the \(what) stream parameters")
        }
        // Slice threads only: frame threads would add a frame of delay per thread (a camera).
        decoder.pointee.thread_count = 0
        decoder.pointee.thread_type = isLive ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE
        guard avcodec_open2(decoder, codec, nil) >= 0 else {
            avcodec_free_context(&owned)
            throw MediaInputError(.noMedia, "cannot open the \(what) decoder")
        }
        return decoder
    }

    /// Starts the file over (for `--loop`); timestamps restart at 0.
    public func rewind() throws(MediaInputError) {
        guard let format, !isLive else { return }
        guard av_seek_frame(format, -1, 0, AVSEEK_FLAG_BACKWARD) >= 0 else {
            throw MediaInputError(.decode, "cannot seek back to the start to loop this input")
        }
        if let videoDecoder { avcodec_flush_buffers(videoDecoder) }
        if let audioDecoder { avcodec_flush_buffers(audioDecoder) }
        startPTS = nil
        draining = false
        decodersDrained = (videoDecoder == nil, audioDecoder == nil)
    }

    /// One step: returns as soon as a picture or some audio was produced, or the input ended.
    public func next(video: VideoFrameBuffer, audio: inout PCMFifo) throws(MediaInputError) -> MediaInputEvent {
        while true {
            if let event = try receive(video: video, audio: &audio) { return event }
            if draining {
                if decodersDrained.video && (audioDecoder == nil || decodersDrained.audio) { return .endOfInput }
                continue
            }
            guard let format, let packet else { return .endOfInput }
            let read = av_read_frame(format, packet)
            if read == clive_AVERROR_EAGAIN() { return .notReady }
            if read < 0 {
                // End of file (or a read error, treated the same): drain what the decoders hold.
                draining = true
                if let videoDecoder { avcodec_send_packet(videoDecoder, nil) }
                if let audioDecoder { avcodec_send_packet(audioDecoder, nil) }
                continue
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index == videoStream, let videoDecoder {
                _ = avcodec_send_packet(videoDecoder, packet)
            } else if packet.pointee.stream_index == audioStream, let audioDecoder {
                _ = avcodec_send_packet(audioDecoder, packet)
            }
        }
    }

    /// Takes one decoded frame from either decoder, if any is ready.
    private func receive(video: VideoFrameBuffer, audio: inout PCMFifo) throws(MediaInputError) -> MediaInputEvent? {
        guard let frame else { return nil }
        if let videoDecoder, !decodersDrained.video {
            let result = avcodec_receive_frame(videoDecoder, frame)
            if result == 0 {
                defer { av_frame_unref(frame) }
                try scaler.scale(frame, into: video)
                video.timestamp90kHz = rebase(frame.pointee.best_effort_timestamp)
                return .video
            }
            if result == clive_AVERROR_EOF() { decodersDrained.video = true }
        }
        if let audioDecoder, !decodersDrained.audio {
            let result = avcodec_receive_frame(audioDecoder, frame)
            if result == 0 {
                defer { av_frame_unref(frame) }
                try resampler.convert(frame, into: &audio)
                return .audio
            }
            if result == clive_AVERROR_EOF() { decodersDrained.audio = true }
        }
        return nil
    }

    /// Video pts in 90 kHz from the first picture (files may start anywhere; cameras at uptime).
    private func rebase(_ pts: Int64) -> Int64 {
        guard pts != clive_AV_NOPTS_VALUE() else { return startPTS.map { _ in 0 } ?? 0 }
        let ticks = av_rescale_q(pts, videoTimeBase, AVRational(num: 1, den: 90_000))
        if startPTS == nil { startPTS = ticks }
        return max(0, ticks - startPTS!)
    }
}
