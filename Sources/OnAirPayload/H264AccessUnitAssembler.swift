/// Turns RFC 6184 payloads that arrive in sequence order into access units
/// (packetization-mode 1, §6.3: single NAL unit packets §5.6, STAP-A §5.7.1, FU-A §5.8).
///
/// An access unit is the run of packets with one RTP timestamp; it ends at the packet
/// with the marker bit (§5.1) or, for senders that omit it, when the timestamp changes.
/// The rule that matters downstream: an access unit with a packet missing or malformed
/// is never handed out, and after one the assembler drops everything until the next
/// complete IDR access unit, since later pictures may reference what was lost.
///
/// An access unit that begins right after lost packets (or at the start of a stream that
/// was joined, not begun) may have lost its first packets without any gap inside it. It
/// counts as whole only if it opens with a NAL unit that comes first in an access unit:
/// an access unit delimiter (always first, H.264 §7.4.1.2.3) or an SPS (first when there
/// is no delimiter, as encoders send IDR access units).
struct H264AccessUnitAssembler: Sendable {
    var statistics = H264DepacketizerStatistics()
    /// Newest parameter sets from access units handed out.
    private(set) var sps: [UInt8]?
    private(set) var pps: [UInt8]?
    private let maxAccessUnitSize: Int

    /// Timestamp of the access unit being built; nil between access units.
    private var timestamp: UInt32?
    private var nalUnits: [[UInt8]] = []
    private var size = 0
    private var hasIDR = false
    /// The access unit being built lost a packet or got a malformed one.
    private var broken = false
    /// Packets were lost between access units (or the stream was joined): the next
    /// access unit may have lost its start.
    private var nextStartUncertain: Bool
    /// FU-A reassembly: the NAL unit so far (reconstructed header first). Reused.
    private var fragment: [UInt8] = []
    private var fragmentActive = false
    /// Timestamp of the access unit closed last; packets that still carry it are strays.
    private var closedTimestamp: UInt32?
    private var needsKeyframe: Bool

    /// - Parameter waitForKeyframe: drop access units until the first complete IDR. When
    ///   false, the first packet is trusted to begin an access unit (a stream received
    ///   from its start), and access units are handed out from there.
    init(waitForKeyframe: Bool = true, maxAccessUnitSize: Int = 8 << 20) {
        needsKeyframe = waitForKeyframe
        nextStartUncertain = waitForKeyframe
        self.maxAccessUnitSize = maxAccessUnitSize
    }

    /// Feeds the next packet in sequence order; `lostBefore` counts the sequence numbers
    /// missing just before it.
    mutating func process(_ packet: RTPPayloadPacket, lostBefore: Int, emit: (H264AccessUnit) -> Void) {
        if lostBefore > 0 {
            statistics.packetsLost += lostBefore
            needsKeyframe = true
            if let current = timestamp {
                broken = true
                // Lost packets between two timestamps: the new access unit may lack its head.
                if current != packet.timestamp { nextStartUncertain = true }
            } else {
                nextStartUncertain = true
            }
        }
        if let current = timestamp, current != packet.timestamp {
            close(emit: emit)
        }
        if timestamp == nil {
            if packet.timestamp == closedTimestamp {
                statistics.packetsAfterMarker += 1
                return
            }
            timestamp = packet.timestamp
            if nextStartUncertain {
                let first = Self.firstNALUnitType(in: packet.payload)
                broken = first != .accessUnitDelimiter && first != .sps
            }
            nextStartUncertain = false
        }
        if !broken && !depacketize(packet.payload) {
            statistics.packetsMalformed += 1
            broken = true
        }
        if packet.marker { close(emit: emit) }
    }

    /// Ends the access unit being built: hands it out if it is whole and decodable.
    private mutating func close(emit: (H264AccessUnit) -> Void) {
        guard let current = timestamp else { return }
        timestamp = nil
        closedTimestamp = current
        if fragmentActive {
            broken = true  // an FU-A without its end fragment
            fragmentActive = false
        }
        defer {
            broken = false
            hasIDR = false
            size = 0
        }
        if broken {
            statistics.accessUnitsDroppedIncomplete += 1
            needsKeyframe = true
            nalUnits.removeAll(keepingCapacity: true)
            return
        }
        guard !nalUnits.isEmpty else { return }  // only ignored payloads
        if needsKeyframe && !hasIDR {
            statistics.accessUnitsDroppedAwaitingKeyframe += 1
            nalUnits.removeAll(keepingCapacity: true)
            return
        }
        needsKeyframe = false
        for nal in nalUnits {
            switch H264NALUnitHeader(nal[0]).type {
            case .sps: sps = nal
            case .pps: pps = nal
            default: break
            }
        }
        statistics.accessUnitsEmitted += 1
        if hasIDR { statistics.keyframesEmitted += 1 }
        let unit = H264AccessUnit(timestamp: current, nalUnits: nalUnits, isKeyframe: hasIDR, sps: sps, pps: pps)
        nalUnits = []
        emit(unit)
    }

    /// Adds the NAL units of one payload; false if the payload breaks RFC 6184.
    private mutating func depacketize(_ payload: ArraySlice<UInt8>) -> Bool {
        guard let first = payload.first else { return false }
        let header = H264NALUnitHeader(first)
        // §5.3: F = 1 flags possible bit errors; never pass those on as a clean picture.
        guard !header.forbiddenZeroBit else { return false }
        switch header.type.rawValue {
        case 1...23:
            return !fragmentActive && append(payload)
        case H264NALUnitType.stapA.rawValue:
            return !fragmentActive && depacketizeSTAPA(payload)
        case H264NALUnitType.fuA.rawValue:
            return depacketizeFUA(payload)
        case 0, 30, 31:
            // Reserved/unspecified in RFC 6184 Table 1: not H.264 data, so skip it.
            statistics.packetsIgnored += 1
            return true
        default:
            return false  // STAP-B, MTAP16, MTAP24, FU-B: interleaved mode only (§6.4)
        }
    }

    /// §5.7.1 STAP-A: the STAP-A header, then units of a 16-bit NAL unit size followed
    /// by that many bytes; at least one unit, each non-empty, none past the end.
    private mutating func depacketizeSTAPA(_ payload: ArraySlice<UInt8>) -> Bool {
        var offset = payload.startIndex + 1
        var units = 0
        while offset < payload.endIndex {
            guard payload.endIndex - offset >= 2 else { return false }
            let length = Int(payload[offset]) << 8 | Int(payload[offset + 1])
            offset += 2
            guard length > 0, length <= payload.endIndex - offset else { return false }
            let nal = payload[offset..<offset + length]
            let header = H264NALUnitHeader(nal[nal.startIndex])
            guard !header.forbiddenZeroBit, header.type.isSingleNALUnit, append(nal) else { return false }
            offset += length
            units += 1
        }
        return units > 0
    }

    /// §5.8 FU-A: FU indicator (F, NRI, type 28), FU header (S, E, R, NAL unit type),
    /// fragment. The NAL unit header is rebuilt from F and NRI of the indicator and the
    /// type of the FU header. Fragments must run start → middle → end without a break;
    /// a start and end in one FU (forbidden to senders) is accepted as a whole NAL unit.
    private mutating func depacketizeFUA(_ payload: ArraySlice<UInt8>) -> Bool {
        guard payload.count >= 2 else { return false }
        let indicator = payload[payload.startIndex]
        let fuHeader = payload[payload.startIndex + 1]
        let isStart = fuHeader & 0x80 != 0
        let isEnd = fuHeader & 0x40 != 0
        let type = H264NALUnitType(fuHeader)
        guard type.isSingleNALUnit else { return false }
        let data = payload[(payload.startIndex + 2)...]
        if isStart {
            guard !fragmentActive else { return false }  // the previous FU-A never ended
            fragment.removeAll(keepingCapacity: true)
            fragment.append(indicator & 0xE0 | type.rawValue)
            fragmentActive = true
        } else {
            guard fragmentActive, H264NALUnitType(fragment[0]) == type else { return false }
        }
        guard size + fragment.count + data.count <= maxAccessUnitSize else { return false }
        data.append(to: &fragment)
        if isEnd {
            fragmentActive = false
            return append(fragment)
        }
        return true
    }

    /// Type of the first NAL unit a payload starts (nil for an FU-A continuation).
    private static func firstNALUnitType(in payload: ArraySlice<UInt8>) -> H264NALUnitType? {
        guard let first = payload.first else { return nil }
        let start = payload.startIndex
        switch H264NALUnitType(first) {
        case .stapA:
            return payload.count >= 4 ? H264NALUnitType(payload[start + 3]) : nil
        case .fuA:
            return payload.count >= 2 && payload[start + 1] & 0x80 != 0 ? H264NALUnitType(payload[start + 1]) : nil
        default:
            return H264NALUnitType(first)
        }
    }

    /// Adds one whole NAL unit to the access unit, within the size limit.
    private mutating func append<NAL: Collection>(_ nal: NAL) -> Bool where NAL.Element == UInt8 {
        guard let first = nal.first, size + nal.count <= maxAccessUnitSize else { return false }
        if H264NALUnitHeader(first).type == .idrSlice { hasIDR = true }
        size += nal.count
        nalUnits.append(Array(nal))
        return true
    }
}
