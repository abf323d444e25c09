/// A big-endian writer that appends to a growable byte array.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func write(_ value: UInt8) { bytes.append(value) }

    public mutating func write(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func writeUInt24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func write(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value >> 32))
        write(UInt32(truncatingIfNeeded: value))
    }

    public mutating func write<S: Sequence>(contentsOf source: S) where S.Element == UInt8 {
        bytes.append(contentsOf: source)
    }

    public mutating func writeZeros(_ count: Int) {
        bytes.append(contentsOf: repeatElement(0, count: count))
    }

    /// Overwrites a big-endian UInt16 already written at `index` (e.g. a length field).
    public mutating func set(_ value: UInt16, at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[index + 1] = UInt8(truncatingIfNeeded: value)
    }

    /// Overwrites a big-endian UInt32 already written at `index`.
    public mutating func set(_ value: UInt32, at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[index + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[index + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[index + 3] = UInt8(truncatingIfNeeded: value)
    }
}
