import OnAirWire

/// An RFC 3550 §5.3.1 header extension as written after the CSRCs: the "defined by
/// profile" value and data padded to a multiple of 32 bits. Built from RFC 8285 elements.
public struct RTPHeaderExtensionBlock: Sendable, Hashable {
    public var profile: UInt16
    /// Extension data, always a multiple of 4 bytes (the length field counts words).
    public private(set) var data: [UInt8]

    /// A block with raw data; zero octets are appended up to the next 32-bit boundary
    /// (RFC 8285 padding). Data longer than the 16-bit word count allows is cut.
    public init(profile: UInt16, data: [UInt8]) {
        self.profile = profile
        var padded = Array(data.prefix(4 * Int(UInt16.max)))
        padded.append(contentsOf: repeatElement(0, count: (4 - padded.count % 4) % 4))
        self.data = padded
    }

    /// RFC 8285 §4: the elements in the one-byte form when every element fits it
    /// (ID 1-14, 1-16 bytes), else in the two-byte form.
    public init(elements: [RTPHeaderExtensionElement]) throws(WireError) {
        let fitsOneByte = elements.allSatisfy { RTPHeaderExtensionForm.oneByte.canEncode(id: $0.id, dataCount: $0.data.count) }
        try self.init(elements: elements, form: fitsOneByte ? .oneByte : .twoByte(appBits: 0))
    }

    /// The elements in the given form.
    /// - Throws: ``WireError`` if an element's ID or length cannot be written in `form`.
    public init(elements: [RTPHeaderExtensionElement], form: RTPHeaderExtensionForm) throws(WireError) {
        var writer = ByteWriter(capacity: elements.reduce(0) { $0 + 2 + $1.data.count })
        for element in elements {
            guard form.canEncode(id: element.id, dataCount: element.data.count) else {
                throw .invalid("extension element \(element.id) with \(element.data.count) bytes does not fit the \(form) form")
            }
            switch form {
            case .oneByte:
                writer.write(element.id << 4 | UInt8(element.data.count - 1))
            case .twoByte:
                writer.write(element.id)
                writer.write(UInt8(element.data.count))
            }
            writer.write(contentsOf: element.data)
        }
        guard writer.count <= 4 * Int(UInt16.max) else {
            throw .invalid("header extension of \(writer.count) bytes exceeds the 16-bit word count")
        }
        self.init(profile: form.profile, data: writer.bytes)
    }

    public var form: RTPHeaderExtensionForm? { RTPHeaderExtensionForm(profile: profile) }

    /// Bytes on the wire: 4-byte extension header plus data.
    public var serializedSize: Int { 4 + data.count }

    public func serialize(into writer: inout ByteWriter) {
        writer.write(profile)
        writer.write(UInt16(data.count / 4))
        writer.write(contentsOf: data)
    }

    /// The RFC 8285 elements in this block (empty if the profile is not RFC 8285).
    public func elements() throws(WireError) -> [RTPHeaderExtensionElement] {
        guard let form else { return [] }
        return try data.withWireBytes { bytes throws(WireError) in
            var out: [RTPHeaderExtensionElement] = []
            try RTPHeaderExtensionWalker.forEach(in: bytes, form: form, dataRange: 0..<bytes.count) { id, range in
                out.append(RTPHeaderExtensionElement(id: id, data: Array(bytes[range])))
                return true
            }
            return out
        }
    }
}
