import OnAirWire

/// Walks the elements of an RFC 8285 header extension block without allocating.
public enum RTPHeaderExtensionWalker {
    /// Calls `body(id, dataRange)` for each element of the extension data in
    /// `packet[dataRange]`, in order, until `body` returns false.
    ///
    /// RFC 8285 §4.2: padding octets (0) are skipped; ID 15 ends the one-byte form and
    /// elements after it are ignored. A one-byte element with ID 0 but a non-zero length
    /// is not padding and is malformed, so processing stops there too. RFC 8285 §4.3: in
    /// the two-byte form an ID octet of 0 is one padding octet.
    ///
    /// - Throws: ``WireError`` if an element runs past the end of the block, or if
    ///   `dataRange` does not lie within `packet`.
    public static func forEach(
        in packet: UnsafeRawBufferPointer,
        form: RTPHeaderExtensionForm,
        dataRange: Range<Int>,
        _ body: (_ id: UInt8, _ data: Range<Int>) -> Bool
    ) throws(WireError) {
        guard dataRange.lowerBound >= 0, dataRange.upperBound <= packet.count else {
            throw .invalid("RTP header extension range \(dataRange) lies outside the \(packet.count)-byte packet")
        }
        let end = dataRange.upperBound
        var position = dataRange.lowerBound
        switch form {
        case .oneByte:
            while position < end {
                let byte = packet[position]
                if byte == 0 {
                    position += 1
                    continue
                }
                let id = byte >> 4
                if id == 15 || id == 0 { return }
                let start = position + 1
                let stop = start + Int(byte & 0x0F) + 1
                guard stop <= end else {
                    throw .invalid("RTP one-byte extension element \(id) runs past the end of the block")
                }
                if !body(id, start..<stop) { return }
                position = stop
            }
        case .twoByte:
            while position < end {
                let id = packet[position]
                if id == 0 {
                    position += 1
                    continue
                }
                guard position + 2 <= end else {
                    throw .invalid("RTP two-byte extension element \(id) has no length octet")
                }
                let start = position + 2
                let stop = start + Int(packet[position + 1])
                guard stop <= end else {
                    throw .invalid("RTP two-byte extension element \(id) runs past the end of the block")
                }
                if !body(id, start..<stop) { return }
                position = stop
            }
        }
    }

    /// The data range of the first element with `id` in the packet's extension, or nil if
    /// the packet has no RFC 8285 extension or no such element.
    public static func find(
        id: UInt8, in packet: UnsafeRawBufferPointer, header: RTPHeader
    ) throws(WireError) -> Range<Int>? {
        guard let form = header.extensionForm else { return nil }
        var found: Range<Int>? = nil
        try forEach(in: packet, form: form, dataRange: header.extensionDataRange) { elementID, data in
            if elementID == id { found = data; return false }
            return true
        }
        return found
    }
}

extension RTPHeader {
    /// The RFC 8285 extension elements of `packet` (which this header was parsed from),
    /// copied out; empty when there is no extension or its profile is not RFC 8285.
    public func extensionElements(in packet: [UInt8]) throws(WireError) -> [RTPHeaderExtensionElement] {
        guard let form = extensionForm else { return [] }
        let range = extensionDataRange
        return try packet.withWireBytes { bytes throws(WireError) in
            var elements: [RTPHeaderExtensionElement] = []
            try RTPHeaderExtensionWalker.forEach(in: bytes, form: form, dataRange: range) { id, data in
                elements.append(RTPHeaderExtensionElement(id: id, data: Array(bytes[data])))
                return true
            }
            return elements
        }
    }

    /// The data of the first extension element with `id`, copied out, or nil.
    public func extensionElement(id: UInt8, in packet: [UInt8]) throws(WireError) -> [UInt8]? {
        let header = self
        return try packet.withWireBytes { bytes throws(WireError) in
            try RTPHeaderExtensionWalker.find(id: id, in: bytes, header: header).map { Array(bytes[$0]) }
        }
    }
}
