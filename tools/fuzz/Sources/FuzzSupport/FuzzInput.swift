/// Reads a fuzzer's input as a small structured stream: flag bytes, integers, and
/// length-prefixed chunks (a 2-byte big-endian length, then that many bytes, clamped to
/// what is left). Reads past the end yield zeros and empty chunks, so every input is valid:
/// the harness never rejects bytes, it only interprets them.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var offset = 0

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    public mutating func uint32() -> UInt32 { UInt32(uint16()) << 16 | UInt32(uint16()) }

    /// The next length-prefixed chunk, or nil at the end of the input.
    public mutating func chunk() -> [UInt8]? {
        guard !isAtEnd else { return nil }
        let length = min(Int(uint16()), bytes.count - offset)
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }

    /// All chunks left.
    public mutating func chunks(limit: Int = 64) -> [[UInt8]] {
        var out: [[UInt8]] = []
        while out.count < limit, let next = chunk() { out.append(next) }
        return out
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return offset < bytes.count ? Array(bytes[offset...]) : []
    }
}

/// Encodes chunks the way ``FuzzInput/chunk()`` reads them (for seeds and regression tests).
public func encodeChunks(_ chunks: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = []
    for chunk in chunks {
        out.append(UInt8(chunk.count >> 8))
        out.append(UInt8(chunk.count & 0xFF))
        out += chunk
    }
    return out
}

/// A broken invariant: the harness traps so libFuzzer records the input as a crash.
/// (`precondition` would be compiled out under -Ounchecked; this never is.)
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError("fuzz invariant: \(message())", file: file, line: line) }
}
