import CLiveFFmpeg

/// Scales an I420 picture into a smaller I420 picture (libswscale, area-averaging filter:
/// the right one for the 2x and 4x reductions of a simulcast ladder). One per output size.
public final class PictureScaler {
    private let context: OpaquePointer
    public let output: VideoFrameBuffer

    public init(from width: Int, _ height: Int, to outputWidth: Int, _ outputHeight: Int) throws(H264EncoderError) {
        guard let context = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_YUV420P, Int32(outputWidth),
                                           Int32(outputHeight), AV_PIX_FMT_YUV420P, SWS_AREA, nil, nil, nil) else {
            throw H264EncoderError("cannot scale \(width)x\(height) to \(outputWidth)x\(outputHeight)")
        }
        self.context = context
        output = VideoFrameBuffer(width: outputWidth, height: outputHeight)
    }

    deinit { sws_freeContext(context) }

    /// Scales `picture` into ``output`` and carries its timestamps over.
    public func scale(_ picture: VideoFrameBuffer) -> VideoFrameBuffer {
        let sources: [UnsafePointer<UInt8>?] = [UnsafePointer(picture.luma), UnsafePointer(picture.chromaU),
                                                UnsafePointer(picture.chromaV), nil]
        let sourceStrides: [Int32] = [Int32(picture.lumaStride), Int32(picture.chromaStride), Int32(picture.chromaStride), 0]
        let targets: [UnsafeMutablePointer<UInt8>?] = [output.luma, output.chromaU, output.chromaV, nil]
        let targetStrides: [Int32] = [Int32(output.lumaStride), Int32(output.chromaStride), Int32(output.chromaStride), 0]
        _ = sws_scale(context, sources, sourceStrides, 0, Int32(picture.height), targets, targetStrides)
        output.timestamp90kHz = picture.timestamp90kHz
        output.capturedAt = picture.capturedAt
        return output
    }
}
