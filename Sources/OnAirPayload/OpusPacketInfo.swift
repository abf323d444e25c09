import OnAirWire

/// What the framing of an Opus packet says (RFC 6716 §3.2): its TOC, how many frames it
/// holds and how long it plays. Parsing checks the requirements of §3.4 ([R1]–[R7]), so a
/// packet that passes is well-formed at the framing level.
public struct OpusPacketInfo: Hashable, Sendable {
    /// RFC 6716 §3.2.1: no frame may be longer than 1275 bytes.
    public static let maxFrameBytes = 1275
    /// RFC 6716 §3.2.5 [R5]: a packet plays at most 120 ms.
    public static let maxPacketSamples = 5760

    public let toc: OpusTOC
    public let frameCount: Int
    /// Total duration in samples at 48 kHz (frame count × frame duration).
    public var durationSamples: Int { frameCount * toc.frameSamples }

    /// Parses the framing of one Opus packet (an RFC 7587 RTP payload).
    public init<Bytes: Collection>(packet: Bytes) throws(WireError) where Bytes.Element == UInt8 {
        var bytes = packet.makeIterator()
        var remaining = packet.count
        // [R1]: at least one byte.
        guard let tocByte = bytes.next() else { throw .invalid("empty Opus packet") }
        remaining -= 1
        toc = OpusTOC(tocByte)

        func next() throws(WireError) -> Int {
            guard let byte = bytes.next() else { throw .truncated }
            remaining -= 1
            return Int(byte)
        }
        // §3.2.1 frame length coding: 0...251 in one byte, 252...255 take a second byte.
        func frameLength() throws(WireError) -> Int {
            let first = try next()
            if first < 252 { return first }
            return try next() * 4 + first
        }

        switch toc.frameCountCode {
        case .one:  // §3.2.2
            guard remaining <= Self.maxFrameBytes else { throw .invalid("Opus code 0 frame of \(remaining) bytes") }
            frameCount = 1
        case .twoEqual:  // §3.2.3, [R3]
            guard remaining % 2 == 0 else { throw .invalid("Opus code 1 packet with an odd payload of \(remaining) bytes") }
            guard remaining / 2 <= Self.maxFrameBytes else { throw .invalid("Opus code 1 frames of \(remaining / 2) bytes") }
            frameCount = 2
        case .twoDifferent:  // §3.2.4, [R4]
            let first = try frameLength()
            guard first <= remaining else { throw .invalid("Opus code 2 first frame of \(first) bytes overruns the packet") }
            guard remaining - first <= Self.maxFrameBytes else { throw .invalid("Opus code 2 second frame too long") }
            frameCount = 2
        case .arbitrary:  // §3.2.5
            let countByte = try next()
            let isVBR = countByte & 0x80 != 0
            let hasPadding = countByte & 0x40 != 0
            let count = countByte & 0x3F
            // [R5]: at least one frame, at most 120 ms.
            guard count >= 1 else { throw .invalid("Opus code 3 packet with zero frames") }
            guard count * toc.frameSamples <= Self.maxPacketSamples else {
                throw .invalid("Opus packet of \(count) frames lasts more than 120 ms")
            }
            var padding = 0
            if hasPadding {
                // Each 255 adds 254 bytes and continues; any other value ends the count.
                while true {
                    let value = try next()
                    padding += value == 255 ? 254 : value
                    if value != 255 { break }
                }
            }
            guard padding <= remaining else { throw .invalid("Opus padding of \(padding) bytes overruns the packet") }
            if isVBR {  // [R7]
                var total = 0
                for _ in 0..<(count - 1) {
                    let length = try frameLength()
                    guard length <= Self.maxFrameBytes else { throw .invalid("Opus frame of \(length) bytes") }
                    total += length
                }
                guard total + padding <= remaining else { throw .invalid("Opus VBR frame lengths overrun the packet") }
                guard remaining - padding - total <= Self.maxFrameBytes else { throw .invalid("Opus last frame too long") }
            } else {  // [R6]
                let data = remaining - padding
                guard data % count == 0 else { throw .invalid("Opus CBR data of \(data) bytes does not split into \(count) frames") }
                guard data / count <= Self.maxFrameBytes else { throw .invalid("Opus CBR frames of \(data / count) bytes") }
            }
            frameCount = count
        }
    }
}
