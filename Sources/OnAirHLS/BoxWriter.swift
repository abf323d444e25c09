import OnAirWire

/// Writes ISO base media file format boxes (ISO/IEC 14496-12 §4.2).
///
/// A box is `size(32) type(32) body`, where `size` counts the whole box including its
/// header. Bodies are written through a closure; the writer reserves the size field and
/// back-patches it when the closure returns, so nested boxes never need their sizes
/// computed in advance. A full box (§4.2.2) adds `version(8) flags(24)` after the type.
public struct BoxWriter: Sendable {
    public private(set) var output: ByteWriter

    public init(capacity: Int = 256) {
        output = ByteWriter(capacity: capacity)
    }

    /// The bytes written so far.
    public var bytes: [UInt8] { output.bytes }
    public var count: Int { output.count }

    /// ISO/IEC 14496-12 §4.2 `Box`: writes the header, the body, then the size.
    public mutating func box(_ type: FourCC, _ body: (inout BoxWriter) -> Void) {
        let start = output.count
        output.write(UInt32(0))
        output.write(type.rawValue)
        body(&self)
        output.set(UInt32(truncatingIfNeeded: output.count - start), at: start)
    }

    /// ISO/IEC 14496-12 §4.2 `FullBox`: a box whose body starts with version and flags.
    public mutating func fullBox(_ type: FourCC, version: UInt8, flags: UInt32, _ body: (inout BoxWriter) -> Void) {
        box(type) { writer in
            writer.output.write(version)
            writer.output.writeUInt24(flags)
            body(&writer)
        }
    }

    public mutating func write(_ value: UInt8) { output.write(value) }
    public mutating func write(_ value: UInt16) { output.write(value) }
    public mutating func write(_ value: UInt32) { output.write(value) }
    public mutating func write(_ value: UInt64) { output.write(value) }
    public mutating func write(_ value: FourCC) { output.write(value.rawValue) }
    /// A signed 32-bit field in two's complement (e.g. `trun` data_offset).
    public mutating func write(_ value: Int32) { output.write(UInt32(bitPattern: value)) }
    public mutating func writeUInt24(_ value: UInt32) { output.writeUInt24(value) }
    public mutating func writeZeros(_ count: Int) { output.writeZeros(count) }
    public mutating func write<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8 {
        output.write(contentsOf: bytes)
    }

    /// Overwrites a 32-bit field written earlier at `index` (a `trun` data_offset known only
    /// once the whole `moof` is written).
    public mutating func patch(_ value: UInt32, at index: Int) { output.set(value, at: index) }

    /// ISO/IEC 14496-12 §6.2.2: the unity transformation matrix {0x00010000,0,0, 0,0x00010000,0,
    /// 0,0,0x40000000} that `mvhd` and `tkhd` carry.
    public mutating func writeUnityMatrix() {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { output.write(value) }
    }
}
