import CLiveFFmpeg

/// libswresample from the decoder's layout, format and rate to what Opus takes: 48 kHz,
/// interleaved stereo, signed 16-bit. Rebuilt when the source format changes.
final class AudioResampler {
    private var context: OpaquePointer?
    private var source: (rate: Int32, format: Int32, channels: Int32) = (0, -1, 0)
    private var buffer: UnsafeMutablePointer<Int16>
    private var bufferFrames: Int

    init() {
        bufferFrames = 8192
        buffer = .allocate(capacity: bufferFrames * 2)
    }

    deinit {
        swr_free(&context)
        buffer.deallocate()
    }

    /// Converts one decoded frame and appends it to `fifo`.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, into fifo: inout PCMFifo) throws(MediaInputError) {
        let rate = frame.pointee.sample_rate, format = frame.pointee.format, channels = frame.pointee.ch_layout.nb_channels
        if context == nil || source != (rate, format, channels) {
            swr_free(&context)
            var output = AVChannelLayout()
            av_channel_layout_default(&output, 2)
            let result = swr_alloc_set_opts2(&context, &output, AV_SAMPLE_FMT_S16, 48_000,
                                             &frame.pointee.ch_layout, AVSampleFormat(format), rate, 0, nil)
            guard result >= 0, swr_init(context) >= 0 else {
                throw MediaInputError(.decode, "cannot resample audio (\(rate) Hz, \(channels) channels) to 48 kHz stereo")
            }
            source = (rate, format, channels)
        }
        let needed = Int(swr_get_out_samples(context, frame.pointee.nb_samples))
        if needed > bufferFrames {
            buffer.deallocate()
            bufferFrames = needed
            buffer = .allocate(capacity: bufferFrames * 2)
        }
        var out: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self)
        let converted = frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self,
                                                                     capacity: Int(channels)) { input in
            swr_convert(context, &out, Int32(bufferFrames), input, frame.pointee.nb_samples)
        }
        guard converted >= 0 else { throw MediaInputError(.decode, "audio resampling failed (\(converted))") }
        fifo.push(buffer, frames: Int(converted))
    }
}
