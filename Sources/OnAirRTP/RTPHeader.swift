import OnAirWire

/// RFC 3550 §5.1 RTP fixed header, CSRC list and §5.3.1 header extension, parsed in
/// place: the payload and extension data are described by offsets into the packet, not
/// copied, so parsing does not allocate (except a CSRC array when CC > 0).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// |V=2|P|X|  CC   |M|     PT      |       sequence number         |
/// |                           timestamp                           |
/// |           synchronization source (SSRC) identifier            |
/// |            contributing source (CSRC) identifiers             | (CC of them)
/// |      defined by profile       |           length              | (if X)
/// |                        header extension                       |
/// ```
public struct RTPHeader: Sendable, Hashable {
    /// Size of the fixed header (V..SSRC).
    public static let fixedSize = 12
    public static let version: UInt8 = 2

    public let hasPadding: Bool
    public let hasExtension: Bool
    public let marker: Bool
    public let payloadType: UInt8
    public let sequenceNumber: UInt16
    public let timestamp: UInt32
    public let ssrc: UInt32
    public let csrcs: [UInt32]
    /// The 16-bit "defined by profile" field of the extension (0 when there is none).
    public let extensionProfile: UInt16
    /// Where the extension data lies in the packet: after its 4-byte header, a multiple of
    /// 4 bytes long. Empty when there is no extension.
    public let extensionDataRange: Range<Int>
    /// Offset of the first payload byte, which is also the size of the whole header.
    public let payloadOffset: Int
    /// Payload bytes, not counting padding.
    public let payloadLength: Int
    /// RFC 3550 §5.1 P: trailing octets to ignore, the last of which holds their count.
    public let paddingLength: Int

    public var headerSize: Int { payloadOffset }
    public var payloadRange: Range<Int> { payloadOffset..<(payloadOffset + payloadLength) }
    /// Offset of the 4-byte extension header ("defined by profile" and length), if any.
    public var extensionHeaderOffset: Int? { hasExtension ? extensionDataRange.lowerBound - 4 : nil }
    /// The RFC 8285 form of the extension, or nil if there is none or its profile is unknown.
    public var extensionForm: RTPHeaderExtensionForm? {
        hasExtension ? RTPHeaderExtensionForm(profile: extensionProfile) : nil
    }

    public init(parsing packet: [UInt8]) throws(WireError) {
        self = try packet.withWireBytes { bytes throws(WireError) in try RTPHeader(parsing: bytes) }
    }

    /// Parses the header of the packet that fills `packet` exactly (a datagram after SRTP
    /// unprotect). Offsets in the result are relative to `packet.baseAddress`.
    public init(parsing packet: UnsafeRawBufferPointer) throws(WireError) {
        let count = packet.count
        guard count >= Self.fixedSize else {
            throw .invalid("RTP packet of \(count) bytes is shorter than the 12-byte fixed header")
        }
        let first = packet[0]
        guard first >> 6 == Self.version else {
            throw .invalid("RTP version \(first >> 6), expected 2")
        }
        hasPadding = first & 0x20 != 0
        hasExtension = first & 0x10 != 0
        let csrcCount = Int(first & 0x0F)
        marker = packet[1] & 0x80 != 0
        payloadType = packet[1] & 0x7F
        sequenceNumber = packet.uint16(at: 2)
        timestamp = packet.uint32(at: 4)
        ssrc = packet.uint32(at: 8)

        var offset = Self.fixedSize
        guard count >= offset + 4 * csrcCount else {
            throw .invalid("RTP CSRC count \(csrcCount) runs past the end of a \(count)-byte packet")
        }
        if csrcCount == 0 {
            csrcs = []
        } else {
            var list: [UInt32] = []
            list.reserveCapacity(csrcCount)
            for _ in 0..<csrcCount {
                list.append(packet.uint32(at: offset))
                offset += 4
            }
            csrcs = list
        }

        if hasExtension {
            guard count >= offset + 4 else {
                throw .invalid("RTP extension bit set but no room for the extension header")
            }
            extensionProfile = packet.uint16(at: offset)
            let dataCount = Int(packet.uint16(at: offset + 2)) * 4
            offset += 4
            guard count >= offset + dataCount else {
                throw .invalid("RTP header extension of \(dataCount) bytes runs past the end of the packet")
            }
            extensionDataRange = offset..<(offset + dataCount)
            offset += dataCount
        } else {
            extensionProfile = 0
            extensionDataRange = offset..<offset
        }

        var padding = 0
        if hasPadding {
            padding = Int(packet[count - 1])
            guard padding >= 1 else {
                throw .invalid("RTP padding bit set but the padding count is zero")
            }
            guard padding <= count - offset else {
                throw .invalid("RTP padding of \(padding) bytes is longer than the \(count - offset) bytes after the header")
            }
        }
        paddingLength = padding
        payloadOffset = offset
        payloadLength = count - offset - padding
    }
}
