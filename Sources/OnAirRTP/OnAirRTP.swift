// OnAirRTP: RTP/RTCP packets (RFC 3550, 4585, 5104, 8285), feedback and payload formats.
//
// Everything here is pure: bytes in, values out, time passed in. Per-packet paths (header
// parsing, in-place rewriting, the retransmission cache) work on raw buffers and do not
// allocate.

import OnAirWire

/// Big-endian loads and stores on raw buffers, used by the zero-copy RTP paths.
/// Callers check bounds first; these never check again.
extension UnsafeRawBufferPointer {
    @inline(__always) func uint16(at i: Int) -> UInt16 { UInt16(self[i]) << 8 | UInt16(self[i + 1]) }
    @inline(__always) func uint32(at i: Int) -> UInt32 {
        UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always) func setUInt16(_ v: UInt16, at i: Int) {
        self[i] = UInt8(truncatingIfNeeded: v >> 8)
        self[i + 1] = UInt8(truncatingIfNeeded: v)
    }
    @inline(__always) func setUInt32(_ v: UInt32, at i: Int) {
        self[i] = UInt8(truncatingIfNeeded: v >> 24)
        self[i + 1] = UInt8(truncatingIfNeeded: v >> 16)
        self[i + 2] = UInt8(truncatingIfNeeded: v >> 8)
        self[i + 3] = UInt8(truncatingIfNeeded: v)
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that keeps the typed `WireError` (the stdlib one only rethrows `any Error`).
    @inline(__always)
    func withWireBytes<R>(_ body: (UnsafeRawBufferPointer) throws(WireError) -> R) throws(WireError) -> R {
        let result = withUnsafeBytes { bytes in Result { () throws(WireError) -> R in try body(bytes) } }
        return try result.get()
    }

    /// `withUnsafeMutableBytes` that keeps the typed `WireError`.
    @inline(__always)
    mutating func withMutableWireBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(WireError) -> R
    ) throws(WireError) -> R {
        let result = withUnsafeMutableBytes { bytes in Result { () throws(WireError) -> R in try body(bytes) } }
        return try result.get()
    }
}
