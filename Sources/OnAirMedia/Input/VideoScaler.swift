import CLiveFFmpeg

/// libswscale from whatever the decoder or camera gives (any pixel format and size) to I420
/// at the encoder's size. Rebuilt only when the source format changes mid-stream.
final class VideoScaler {
    private var context: OpaquePointer?
    private var source: (width: Int32, height: Int32, format: Int32) = (0, 0, -1)

    deinit { sws_freeContext(context) }

    func scale(_ frame: UnsafeMutablePointer<AVFrame>, into target: VideoFrameBuffer) throws(MediaInputError) {
        let width = frame.pointee.width, height = frame.pointee.height, format = frame.pointee.format
        if context == nil || source != (width, height, format) {
            sws_freeContext(context)
            // Bilinear: the cheap filter that still looks right for downscaling by < 2x.
            context = sws_getContext(width, height, AVPixelFormat(format), Int32(target.width), Int32(target.height),
                                     AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
            source = (width, height, format)
            guard context != nil else {
                throw MediaInputError(.decode, "cannot convert \(width)x\(height) pixel format \(format) to yuv420p")
            }
        }
        var planes: [UnsafeMutablePointer<UInt8>?] = [target.luma, target.chromaU, target.chromaV, nil]
        var strides: [Int32] = [Int32(target.lumaStride), Int32(target.chromaStride), Int32(target.chromaStride), 0]
        withUnsafePointer(to: &frame.pointee.data) { data in
            withUnsafePointer(to: &frame.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sourcePlanes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                        _ = sws_scale(context, sourcePlanes, sourceStrides, 0, height, &planes, &strides)
                    }
                }
            }
        }
    }
}
