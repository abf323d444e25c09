/// Splits H.264 access units into RTP payloads, RFC 6184 packetization-mode 1
/// (non-interleaved mode, §6.3), using:
///
/// - single NAL unit packets (§5.6) for a NAL unit that fits on its own,
/// - STAP-A (§5.7.1) for runs of consecutive NAL units that fit together (typically
///   SPS + PPS + a small slice), in decoding order, never across access units,
/// - FU-A (§5.8) for a NAL unit larger than the payload limit.
///
/// The last payload of an access unit is flagged: RFC 6184 §5.1 sets the RTP marker bit
/// on it. All payloads of one access unit share its RTP timestamp (90 kHz, §5.1).
/// The packetizer has no state; the caller owns sequence numbers and timestamps.
public struct H264Packetizer: Hashable, Sendable {
    /// Payload limit that keeps an SRTP packet with header extensions under a 1280-byte
    /// IPv6 minimum MTU, as WebRTC senders do.
    public static let defaultMaxPayloadSize = 1200
    /// An FU-A needs its two header bytes plus at least one byte of the NAL unit.
    public static let smallestMaxPayloadSize = 3

    /// One RTP payload and whether it ends its access unit (the RTP marker bit).
    public struct Payload: Hashable, Sendable {
        public var bytes: [UInt8]
        public var isLastOfAccessUnit: Bool

        public init(bytes: [UInt8], isLastOfAccessUnit: Bool) {
            self.bytes = bytes
            self.isLastOfAccessUnit = isLastOfAccessUnit
        }
    }

    /// The largest RTP payload produced, in bytes.
    public let maxPayloadSize: Int
    /// Whether consecutive small NAL units are aggregated into STAP-A packets.
    public let aggregates: Bool

    public init(maxPayloadSize: Int = defaultMaxPayloadSize, aggregates: Bool = true) {
        precondition(maxPayloadSize >= Self.smallestMaxPayloadSize,
                     "an H.264 RTP payload limit below \(Self.smallestMaxPayloadSize) bytes cannot carry an FU-A")
        self.maxPayloadSize = maxPayloadSize
        self.aggregates = aggregates
    }

    /// The payloads of one access unit: its NAL units in decoding order, without start
    /// codes or length prefixes. Empty NAL units are skipped; an access unit with none
    /// yields no payloads.
    public func packetize<AccessUnit: Collection>(_ accessUnit: AccessUnit) -> [Payload]
    where AccessUnit.Element: Collection, AccessUnit.Element.Element == UInt8 {
        var payloads: [Payload] = []
        var buffer: [UInt8] = []
        packetize(accessUnit, into: &buffer) { buffer, length, isLast in
            payloads.append(Payload(bytes: Array(buffer[0..<length]), isLastOfAccessUnit: isLast))
        }
        return payloads
    }

    /// The allocation-free form of ``packetize(_:)`` for a sender's hot path: each payload
    /// is written into `buffer` starting at `offset` (room for the caller's RTP header in
    /// front), then `emit` is called with the buffer, the payload length and whether it
    /// is the last payload of the access unit. `emit` must use the payload before it
    /// returns: the next payload overwrites it. `buffer` grows once to
    /// `offset + maxPayloadSize` if it is smaller; `emit` may change it freely.
    public func packetize<AccessUnit: Collection, Failure: Error>(
        _ accessUnit: AccessUnit,
        into buffer: inout [UInt8],
        at offset: Int = 0,
        emit: (_ buffer: inout [UInt8], _ payloadLength: Int, _ isLastOfAccessUnit: Bool) throws(Failure) -> Void
    ) throws(Failure) where AccessUnit.Element: Collection, AccessUnit.Element.Element == UInt8 {
        precondition(offset >= 0, "negative payload offset")
        var lastNonEmpty: AccessUnit.Index? = nil
        var scan = accessUnit.startIndex
        while scan != accessUnit.endIndex {
            if !accessUnit[scan].isEmpty { lastNonEmpty = scan }
            accessUnit.formIndex(after: &scan)
        }
        guard let lastNonEmpty else { return }

        var index = accessUnit.startIndex
        while index != accessUnit.endIndex {
            let nal = accessUnit[index]
            if nal.isEmpty {
                accessUnit.formIndex(after: &index)
                continue
            }
            if nal.count > maxPayloadSize {
                try fragment(nal, isLastNAL: index == lastNonEmpty, into: &buffer, at: offset, emit: emit)
                accessUnit.formIndex(after: &index)
                continue
            }
            // Greedy STAP-A: extend while the next NAL unit still fits (§5.7.1 layout:
            // STAP-A header, then a 16-bit size before each NAL unit).
            var size = 1 + 2 + nal.count
            var included = 1
            var lastIncluded = index
            var next = accessUnit.index(after: index)
            // The 16-bit size field caps aggregated NAL units at 65535 bytes.
            while aggregates && nal.count <= 0xFFFF && next != accessUnit.endIndex {
                let candidate = accessUnit[next]
                if !candidate.isEmpty {
                    guard candidate.count <= 0xFFFF, size + 2 + candidate.count <= maxPayloadSize else { break }
                    size += 2 + candidate.count
                    included += 1
                    lastIncluded = next
                }
                accessUnit.formIndex(after: &next)
            }
            ensureRoom(&buffer, offset: offset)
            if included == 1 {
                Self.copy(nal, to: &buffer, at: offset)
                try emit(&buffer, nal.count, index == lastNonEmpty)
                accessUnit.formIndex(after: &index)
                continue
            }
            // §5.7.1: F is the OR of the aggregated F bits, NRI their maximum.
            var forbidden: UInt8 = 0
            var nri: UInt8 = 0
            var position = offset + 1
            var unit = index
            while true {
                let member = accessUnit[unit]
                if let header = member.first {
                    forbidden |= header & 0x80
                    nri = max(nri, header & 0x60)
                    buffer[position] = UInt8(truncatingIfNeeded: member.count >> 8)
                    buffer[position + 1] = UInt8(truncatingIfNeeded: member.count)
                    Self.copy(member, to: &buffer, at: position + 2)
                    position += 2 + member.count
                }
                if unit == lastIncluded { break }
                accessUnit.formIndex(after: &unit)
            }
            buffer[offset] = forbidden | nri | H264NALUnitType.stapA.rawValue
            try emit(&buffer, size, lastIncluded == lastNonEmpty)
            index = accessUnit.index(after: lastIncluded)
        }
    }

    /// §5.8 FU-A: the NAL unit header is replaced by the FU indicator (F and NRI of the
    /// NAL unit, type 28) and the FU header (S, E, R = 0, the NAL unit type); the rest of
    /// the NAL unit is cut into consecutive fragments. A NAL unit that needs an FU-A is
    /// larger than the limit, so there are always two fragments or more and S and E are
    /// never set together (which §5.8 forbids).
    private func fragment<NAL: Collection, Failure: Error>(
        _ nal: NAL, isLastNAL: Bool, into buffer: inout [UInt8], at offset: Int,
        emit: (_ buffer: inout [UInt8], _ payloadLength: Int, _ isLastOfAccessUnit: Bool) throws(Failure) -> Void
    ) throws(Failure) where NAL.Element == UInt8 {
        let header = nal[nal.startIndex]
        let indicator = header & 0xE0 | H264NALUnitType.fuA.rawValue
        let type = header & 0x1F
        let capacity = maxPayloadSize - 2
        var start = nal.index(after: nal.startIndex)
        var remaining = nal.count - 1
        var isFirst = true
        while remaining > 0 {
            let length = min(remaining, capacity)
            let end = nal.index(start, offsetBy: length)
            let isEnd = length == remaining
            ensureRoom(&buffer, offset: offset)
            buffer[offset] = indicator
            buffer[offset + 1] = (isFirst ? 0x80 : 0) | (isEnd ? 0x40 : 0) | type
            Self.copy(nal[start..<end], to: &buffer, at: offset + 2)
            try emit(&buffer, length + 2, isEnd && isLastNAL)
            isFirst = false
            remaining -= length
            start = end
        }
    }

    /// Makes sure a whole payload fits after `offset` (checked before every payload,
    /// since `emit` may have shrunk the buffer).
    @inline(__always)
    private func ensureRoom(_ buffer: inout [UInt8], offset: Int) {
        let needed = offset + maxPayloadSize
        if buffer.count < needed { buffer.append(contentsOf: repeatElement(0, count: needed - buffer.count)) }
    }

    /// Copies `source` into `buffer` at `position`; the caller has checked the room.
    @inline(__always)
    private static func copy<Source: Collection>(_ source: Source, to buffer: inout [UInt8], at position: Int)
    where Source.Element == UInt8 {
        let copied: Void? = source.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return }
            buffer.withUnsafeMutableBufferPointer { destination in
                (destination.baseAddress! + position).update(from: base, count: bytes.count)
            }
        }
        if copied == nil {
            var index = position
            for byte in source {
                buffer[index] = byte
                index += 1
            }
        }
    }
}
