/// One picture in planar YUV 4:2:0 (I420), the layout x264 takes and the test pattern draws:
/// a full-size luma plane and two half-size chroma planes. The memory is allocated once and
/// reused frame after frame, so producing a picture allocates nothing.
///
/// Rows are padded to 64 bytes: x264's and libswscale's SIMD loads read aligned rows.
public final class VideoFrameBuffer: @unchecked Sendable {
    // @unchecked: plain memory handed between one producer and one consumer at a time.
    public let width: Int
    public let height: Int
    public let lumaStride: Int
    public let chromaStride: Int
    public let luma: UnsafeMutablePointer<UInt8>
    public let chromaU: UnsafeMutablePointer<UInt8>
    public let chromaV: UnsafeMutablePointer<UInt8>
    private let storage: UnsafeMutableRawPointer

    /// Presentation time of the picture on the source's clock, in 90 kHz units (RFC 6184 §5.1
    /// RTP clock), set by whoever fills the buffer.
    public var timestamp90kHz: Int64 = 0
    /// Monotonic nanoseconds when the picture was captured or generated (for latency figures).
    public var capturedAt: UInt64 = 0

    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0 && width % 2 == 0 && height % 2 == 0, "I420 needs even, positive dimensions")
        self.width = width
        self.height = height
        lumaStride = Self.align(width)
        chromaStride = Self.align(width / 2)
        let lumaBytes = lumaStride * height
        let chromaBytes = chromaStride * (height / 2)
        // 64 extra bytes: SIMD readers may overrun the last row slightly.
        storage = UnsafeMutableRawPointer.allocate(byteCount: lumaBytes + 2 * chromaBytes + 64, alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: lumaBytes + 2 * chromaBytes + 64)
        luma = storage.assumingMemoryBound(to: UInt8.self)
        chromaU = luma + lumaBytes
        chromaV = chromaU + chromaBytes
    }

    deinit { storage.deallocate() }

    private static func align(_ value: Int) -> Int { (value + 63) & ~63 }
}
