import OnAirWire

/// Transport-wide congestion control feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1): RTPFB with FMT 15.
///
/// ```
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// |                     SSRC of packet sender                     |
/// |                      SSRC of media source                     |
/// |      base sequence number     |      packet status count      |
/// |                 reference time                | fb pkt. count |
/// |          packet chunk         |         packet chunk          | ...
/// |  recv delta   |  recv delta   | ... zero padding              |
/// ```
/// Receive deltas are in 250 µs units: one unsigned byte for a small delta, two signed
/// bytes for a large or negative one. The first is relative to the reference time
/// (64 ms units), each next one to the previous received packet.
public struct TransportWideFeedback: RTCPMessage {
    /// One packet's feedback.
    public struct Packet: Sendable, Hashable {
        public var sequenceNumber: UInt16
        /// Arrival delta in 250 µs units; nil when the packet was not received.
        public var receiveDelta: Int16?

        public init(sequenceNumber: UInt16, receiveDelta: Int16?) {
            self.sequenceNumber = sequenceNumber
            self.receiveDelta = receiveDelta
        }

        public var isReceived: Bool { receiveDelta != nil }
        public var receiveDeltaMicroseconds: Int64? { receiveDelta.map { Int64($0) * 250 } }
    }

    public static let deltaMicroseconds: Int64 = 250
    public static let referenceTimeMicroseconds: Int64 = 64_000
    /// The reference time is a 24-bit signed field.
    public static let referenceTimeRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    /// 64 ms units, 24-bit signed on the wire.
    public var referenceTime: Int32
    public var feedbackPacketCount: UInt8
    /// One entry per packet from the base sequence number on (at most 65535): its
    /// receive delta in 250 µs units, or nil if it was not received.
    public var receiveDeltas: [Int16?]

    public init(
        senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: Int32,
        feedbackPacketCount: UInt8, receiveDeltas: [Int16?]
    ) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
        self.receiveDeltas = receiveDeltas
    }

    /// Per-packet results: sequence number, whether received, arrival delta.
    public var packets: [Packet] {
        receiveDeltas.enumerated().map { i, delta in
            Packet(sequenceNumber: baseSequenceNumber &+ UInt16(truncatingIfNeeded: i), receiveDelta: delta)
        }
    }

    /// Arrival time of each packet in µs on the feedback sender's clock (reference time
    /// plus the running sum of deltas), or nil if not received.
    public var arrivalTimesMicroseconds: [Int64?] {
        var time = Int64(referenceTime) * Self.referenceTimeMicroseconds
        return receiveDeltas.map { delta in
            guard let delta else { return nil }
            time += Int64(delta) * Self.deltaMicroseconds
            return time
        }
    }

    public init(header: RTCPHeader, body: ByteReader) throws(WireError) {
        var reader = body
        try reader.require(16, for: "RTCP transport-cc feedback")
        self = try body.bytes.withWireBytes { bytes throws(WireError) in
            let view = try TransportFeedbackView(UnsafeRawBufferPointer(rebasing: bytes[body.offset..<body.end]))
            var deltas: [Int16?] = []
            deltas.reserveCapacity(view.statusCount)
            view.forEachPacket { _, delta in deltas.append(delta) }
            return TransportWideFeedback(senderSSRC: view.senderSSRC, mediaSSRC: view.mediaSSRC,
                                         baseSequenceNumber: view.baseSequenceNumber, referenceTime: view.referenceTime,
                                         feedbackPacketCount: view.feedbackPacketCount, receiveDeltas: deltas)
        }
    }

    private var statusCount: Int { min(receiveDeltas.count, Int(UInt16.max)) }

    @inline(__always)
    private func symbol(at index: Int) -> UInt8 {
        guard let delta = receiveDeltas[index] else { return TransportWideFeedbackChunk.notReceived }
        return (0...255).contains(delta) ? TransportWideFeedbackChunk.smallDelta : TransportWideFeedbackChunk.largeDelta
    }

    private var chunkCount: Int {
        var chunks = 0
        TransportWideFeedbackChunk.encode(count: statusCount, symbolAt: symbol(at:)) { _ in chunks += 1 }
        return chunks
    }

    private var deltaBytes: Int {
        receiveDeltas.prefix(statusCount).reduce(0) { total, delta in
            guard let delta else { return total }
            return total + ((0...255).contains(delta) ? 1 : 2)
        }
    }

    public var serializedSize: Int {
        (RTCPHeader.size + 16 + 2 * chunkCount + deltaBytes + 3) / 4 * 4
    }

    public func serialize(into writer: inout ByteWriter) {
        let size = serializedSize
        let start = writer.count
        RTCPHeader(count: RTCPPacketType.transportWideCCFormat, packetType: RTCPPacketType.transportFeedback,
                   packetSize: size).serialize(into: &writer)
        writer.write(senderSSRC)
        writer.write(mediaSSRC)
        writer.write(baseSequenceNumber)
        writer.write(UInt16(statusCount))
        let reference = min(max(referenceTime, Self.referenceTimeRange.lowerBound), Self.referenceTimeRange.upperBound)
        writer.writeUInt24(UInt32(bitPattern: reference) & 0xFF_FFFF)
        writer.write(feedbackPacketCount)
        TransportWideFeedbackChunk.encode(count: statusCount, symbolAt: symbol(at:)) { writer.write($0) }
        for delta in receiveDeltas.prefix(statusCount) {
            guard let delta else { continue }
            if (0...255).contains(delta) {
                writer.write(UInt8(delta))
            } else {
                writer.write(UInt16(bitPattern: delta))
            }
        }
        writer.writeZeros(size - (writer.count - start))
    }
}
