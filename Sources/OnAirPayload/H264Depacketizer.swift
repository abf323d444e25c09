/// Reassembles H.264 access units from RTP packets, RFC 6184 packetization-mode 1.
///
/// Packets go in as they arrive from the network; a small reorder window
/// (``RTPReorderBuffer``) restores sequence order, then single NAL unit packets (§5.6),
/// STAP-A (§5.7.1) and FU-A (§5.8) are unpacked into access units, which end at the
/// marker bit (§5.1) or a timestamp change.
///
/// Guarantees, whatever arrives:
/// - every access unit handed out is complete: no packet of it was lost or malformed;
/// - after a loss or malformed packet, nothing is handed out until the next complete IDR
///   access unit (and, by default, nothing before the first one), so a decoder or
///   packager never sees a picture whose references are missing;
/// - an access unit right after a loss (or the first one of a joined stream) counts as
///   complete only if it opens with an access unit delimiter or an SPS, since its first
///   packets may be among those lost;
/// - `isKeyframe` is true only for complete access units containing an IDR picture;
/// - hostile payloads are counted in ``statistics`` and never trap.
public struct H264Depacketizer: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// See ``RTPReorderBuffer/init(window:)``.
        public var reorderWindow: Int
        /// Access units larger than this are dropped as malformed (a bound on the memory a
        /// hostile sender can make the receiver hold).
        public var maxAccessUnitSize: Int
        /// Drop access units until the first IDR, as a packager or decoder joining a
        /// stream must. When false, the first packet is trusted to begin an access unit
        /// (a stream received from its very start) and everything is handed out from there.
        public var waitsForFirstKeyframe: Bool

        public init(reorderWindow: Int = RTPReorderBuffer.defaultWindow, maxAccessUnitSize: Int = 8 << 20,
                    waitsForFirstKeyframe: Bool = true) {
            self.reorderWindow = reorderWindow
            self.maxAccessUnitSize = maxAccessUnitSize
            self.waitsForFirstKeyframe = waitsForFirstKeyframe
        }
    }

    private var reorder: RTPReorderBuffer
    private var assembler: H264AccessUnitAssembler

    public init(configuration: Configuration = Configuration()) {
        reorder = RTPReorderBuffer(window: configuration.reorderWindow)
        assembler = H264AccessUnitAssembler(waitForKeyframe: configuration.waitsForFirstKeyframe,
                                            maxAccessUnitSize: configuration.maxAccessUnitSize)
    }

    public var statistics: H264DepacketizerStatistics { assembler.statistics }
    /// The newest SPS among the access units handed out.
    public var sps: [UInt8]? { assembler.sps }
    /// The newest PPS among the access units handed out.
    public var pps: [UInt8]? { assembler.pps }
    /// Packets held back by the reorder window.
    public var bufferedPacketCount: Int { reorder.bufferedCount }

    /// Takes one packet in arrival order and calls `emit` for each access unit it
    /// completes (usually none or one).
    public mutating func receive(_ packet: RTPPayloadPacket, emit: (H264AccessUnit) -> Void) {
        // The reorder buffer calls back into the assembler; moving the assembler into a
        // local for the call keeps the two accesses to `self` apart without copying it.
        var assembler = H264AccessUnitAssembler()
        swap(&assembler, &self.assembler)
        assembler.statistics.packetsReceived += 1
        let disposition = reorder.insert(packet) { packet, lost in
            assembler.process(packet, lostBefore: lost, emit: emit)
        }
        switch disposition {
        case .accepted: break
        case .duplicate: assembler.statistics.packetsDuplicate += 1
        case .late: assembler.statistics.packetsLate += 1
        }
        swap(&assembler, &self.assembler)
    }

    /// ``receive(_:emit:)`` returning the completed access units.
    public mutating func receive(_ packet: RTPPayloadPacket) -> [H264AccessUnit] {
        var units: [H264AccessUnit] = []
        receive(packet) { units.append($0) }
        return units
    }

    /// Gives up waiting for missing packets: delivers everything the reorder window holds
    /// (the gaps count as lost). Call it from a timer to bound latency, or at the end.
    public mutating func flush(emit: (H264AccessUnit) -> Void) {
        var assembler = H264AccessUnitAssembler()
        swap(&assembler, &self.assembler)
        reorder.flush { packet, lost in
            assembler.process(packet, lostBefore: lost, emit: emit)
        }
        swap(&assembler, &self.assembler)
    }

    /// ``flush(emit:)`` returning the completed access units.
    public mutating func flush() -> [H264AccessUnit] {
        var units: [H264AccessUnit] = []
        flush { units.append($0) }
        return units
    }
}
