import OnAirWire

/// Renumbers RFC 8285 header extension elements from a publisher's IDs to a viewer's,
/// dropping the ones the viewer did not negotiate. IDs are local to each session
/// (RFC 8285 §5 `a=extmap`), so an SFU must rewrite them on the way through.
///
/// The map is a 256-entry table built once per viewer; rewriting a packet does not
/// allocate. Blocks with a profile RFC 8285 does not define are passed through untouched.
public struct RTPHeaderExtensionRewriter: Sendable {
    /// Viewer ID by publisher ID; 0 means drop.
    private var table: [UInt8]

    /// - Parameter mapping: publisher ID → viewer ID. Publisher IDs not in the map, or
    ///   mapped to 0, are dropped.
    public init(mapping: [UInt8: UInt8]) {
        var table = [UInt8](repeating: 0, count: 256)
        for (from, to) in mapping { table[Int(from)] = to }
        self.table = table
    }

    /// The viewer's ID for a publisher's ID, or nil if the element is dropped.
    public func viewerID(for publisherID: UInt8) -> UInt8? {
        let id = table[Int(publisherID)]
        return id == 0 ? nil : id
    }

    /// The viewer ID if it can be written in `form`; one-byte IDs must be 1-14.
    @inline(__always)
    private func mappedID(_ id: UInt8, form: RTPHeaderExtensionForm) -> UInt8? {
        let mapped = table[Int(id)]
        if mapped == 0 { return nil }
        if case .oneByte = form, mapped > 14 { return nil }
        return mapped
    }

    /// Rewrites IDs in place. Dropped elements (and ones whose new ID does not fit the
    /// one-byte form) are overwritten with padding octets, so the packet keeps its size
    /// and 32-bit alignment (RFC 8285 §4.2: padding octets are 0 and are skipped).
    public func rewriteInPlace(_ packet: UnsafeMutableRawBufferPointer, header: RTPHeader) throws(WireError) {
        guard let form = header.extensionForm else { return }
        let readable = UnsafeRawBufferPointer(packet)
        let headerSize = form.elementHeaderSize
        try RTPHeaderExtensionWalker.forEach(in: readable, form: form, dataRange: header.extensionDataRange) { id, data in
            let idOffset = data.lowerBound - headerSize
            if let newID = mappedID(id, form: form) {
                if case .oneByte = form {
                    packet[idOffset] = newID << 4 | (packet[idOffset] & 0x0F)
                } else {
                    packet[idOffset] = newID
                }
            } else {
                for i in idOffset..<data.upperBound { packet[i] = 0 }
            }
            return true
        }
    }

    public func rewriteInPlace(_ packet: inout [UInt8], header: RTPHeader) throws(WireError) {
        try packet.withMutableWireBytes { bytes throws(WireError) in try rewriteInPlace(bytes, header: header) }
    }

    /// Writes the packet to `output` with the extension block rebuilt: kept elements
    /// renumbered and packed, padded to 32 bits, and the block (and X bit) removed when
    /// nothing is kept. The payload and RTP padding are copied unchanged.
    ///
    /// - Parameter output: at least `packet.count` bytes, not overlapping `packet`.
    /// - Returns: the number of bytes written.
    public func rewrite(
        _ packet: UnsafeRawBufferPointer, header: RTPHeader, into output: UnsafeMutableRawBufferPointer
    ) throws(WireError) -> Int {
        guard output.count >= packet.count else {
            throw .invalid("output buffer of \(output.count) bytes is smaller than the \(packet.count)-byte packet")
        }
        guard header.payloadOffset <= packet.count else {
            throw .invalid("RTP header does not belong to this \(packet.count)-byte packet")
        }
        guard let form = header.extensionForm, let extensionOffset = header.extensionHeaderOffset else {
            output.copyMemory(from: packet)
            return packet.count
        }
        output.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet[0..<extensionOffset]))
        let dataStart = extensionOffset + 4
        var position = dataStart
        try RTPHeaderExtensionWalker.forEach(in: packet, form: form, dataRange: header.extensionDataRange) { id, data in
            guard let newID = mappedID(id, form: form) else { return true }
            if case .oneByte = form {
                output[position] = newID << 4 | UInt8(data.count - 1)
                position += 1
            } else {
                output[position] = newID
                output[position + 1] = UInt8(data.count)
                position += 2
            }
            for i in data {
                output[position] = packet[i]
                position += 1
            }
            return true
        }
        while (position - dataStart) % 4 != 0 {
            output[position] = 0
            position += 1
        }
        if position == dataStart {
            output[0] &= ~0x10
            position = extensionOffset
        } else {
            output.setUInt16(form.profile, at: extensionOffset)
            output.setUInt16(UInt16((position - dataStart) / 4), at: extensionOffset + 2)
        }
        let tail = UnsafeRawBufferPointer(rebasing: packet[header.payloadOffset...])
        UnsafeMutableRawBufferPointer(rebasing: output[position...]).copyMemory(from: tail)
        return position + tail.count
    }

    /// The packet with its extension block rebuilt (see ``rewrite(_:header:into:)``).
    public func rewrite(_ packet: [UInt8]) throws(WireError) -> [UInt8] {
        let header = try RTPHeader(parsing: packet)
        var output = [UInt8](repeating: 0, count: packet.count)
        let written = try packet.withWireBytes { input throws(WireError) in
            try output.withMutableWireBytes { out throws(WireError) in try rewrite(input, header: header, into: out) }
        }
        output.removeLast(output.count - written)
        return output
    }
}
