/// A box (or a group of boxes) that knows how to serialize itself (ISO/IEC 14496-12 §4.2).
public protocol BoxWritable: Sendable {
    func write(to writer: inout BoxWriter)
}

extension BoxWritable {
    /// The serialized box on its own, mostly for tests and for one-box files.
    public func serialized() -> [UInt8] {
        var writer = BoxWriter()
        write(to: &writer)
        return writer.bytes
    }
}
