/// What every published packet carries at a fixed payload offset, so a viewer that decrypts it
/// knows which packet it is and when it left the publisher:
/// `magic "OAbn" | counter u64 | monotonic ns u64 | realtime ns u64`, big-endian.
struct MediaStamp: Equatable {
    static let magic: UInt32 = 0x4F41_626E
    static let length = 28
    /// Payload offset: after the FU indicator and FU header for video (RFC 6184 §5.8); at the
    /// start for audio.
    static let videoOffset = 2
    static let audioOffset = 0

    /// Per-track packet counter of the publisher.
    var counter: UInt64
    var monotonicNanoseconds: UInt64
    var realtimeNanoseconds: UInt64

    @inline(__always)
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer.storeBytes(of: Self.magic.bigEndian, toByteOffset: offset, as: UInt32.self)
        buffer.storeBytes(of: counter.bigEndian, toByteOffset: offset + 4, as: UInt64.self)
        buffer.storeBytes(of: monotonicNanoseconds.bigEndian, toByteOffset: offset + 12, as: UInt64.self)
        buffer.storeBytes(of: realtimeNanoseconds.bigEndian, toByteOffset: offset + 20, as: UInt64.self)
    }

    /// Reads a stamp at `offset`, nil when the bytes are not one.
    @inline(__always)
    static func read(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> MediaStamp? {
        guard offset >= 0, buffer.count >= offset + length,
              UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) == magic else { return nil }
        return MediaStamp(
            counter: UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self)),
            monotonicNanoseconds: UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt64.self)),
            realtimeNanoseconds: UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset + 20, as: UInt64.self)))
    }
}
