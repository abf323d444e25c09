import CLiveFFmpeg
import Foundation
@testable import OnAirTranscode

/// Opus packets made by the ffmpeg CLI (libopus, 20 ms frames) and read back with libavformat.
enum OggOpusFixture {
    struct Packet { var bytes: [UInt8]; var pts: Int64 }

    static func packets(toneHz: Int, seconds: Int) throws -> [Packet] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("onair-opus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tone.ogg").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(toneHz):sample_rate=48000",
                            "-t", "\(seconds)", "-ac", "2", "-c:a", "libopus", "-frame_duration", "20", file]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        guard ffmpeg.terminationStatus == 0 else { throw FFmpegError("ffmpeg", message: "exit \(ffmpeg.terminationStatus)") }

        var context: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegError.check(avformat_open_input(&context, file, nil, nil), "open \(file)")
        defer { avformat_close_input(&context) }
        try FFmpegError.check(avformat_find_stream_info(context, nil), "stream info")
        let packet = av_packet_alloc()
        defer { var p = packet; av_packet_free(&p) }
        var result: [Packet] = []
        while av_read_frame(context, packet) >= 0 {
            let stream = context!.pointee.streams[Int(packet!.pointee.stream_index)]!
            let tb = stream.pointee.time_base
            let pts = av_rescale_q(packet!.pointee.pts, tb, AVRational(num: 1, den: 48_000))
            result.append(Packet(bytes: Array(UnsafeBufferPointer(start: packet!.pointee.data, count: Int(packet!.pointee.size))), pts: pts))
            av_packet_unref(packet)
        }
        return result
    }
}

/// Decodes raw AAC frames with libavcodec (left channel, float).
enum AACDecoderFixture {
    static func decode(_ frames: [AACFrame], audioSpecificConfig: [UInt8]) throws -> [Float] {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_AAC) else { throw FFmpegError("aac decoder", message: "missing") }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        let extradata = av_mallocz(audioSpecificConfig.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))!.assumingMemoryBound(to: UInt8.self)
        extradata.update(from: audioSpecificConfig, count: audioSpecificConfig.count)
        context!.pointee.extradata = extradata
        context!.pointee.extradata_size = Int32(audioSpecificConfig.count)
        try FFmpegError.check(avcodec_open2(context, codec, nil), "open aac decoder")
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer { av_packet_free(&packet); av_frame_free(&frame) }
        var samples: [Float] = []
        for aac in frames {
            _ = av_new_packet(packet, Int32(aac.bytes.count))
            packet!.pointee.data.update(from: aac.bytes, count: aac.bytes.count)
            try FFmpegError.check(avcodec_send_packet(context, packet), "decode aac")
            av_packet_unref(packet)
            while avcodec_receive_frame(context, frame) == 0 {
                let left = UnsafeRawPointer(frame!.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
                samples += UnsafeBufferPointer(start: left, count: Int(frame!.pointee.nb_samples))
                av_frame_unref(frame)
            }
        }
        return samples
    }

    static func zeroCrossingFrequency<C: Collection>(_ samples: C, sampleRate: Double) -> Double where C.Element == Float {
        var crossings = 0
        var previous: Float = 0
        for sample in samples {
            if previous < 0 && sample >= 0 { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / (Double(samples.count) / sampleRate)
    }
}
