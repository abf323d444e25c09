import OnAirRTP
import OnAirWire

/// The sending side of one RTP stream (RFC 3550): SSRC, sequence numbers, the header with our
/// extensions, the counts a sender report carries, and a history of what was sent so a NACK
/// (RFC 4585 §6.2.1) can be answered with the very packet.
///
/// Header layout is fixed per stream, so the payload offset is a constant and writing a header
/// is a handful of stores into the caller's buffer: no allocation per packet.
final class RTPStreamSender {
    let ssrc: UInt32
    let payloadType: UInt8
    let clockRate: UInt32
    let extensions: RTPExtensionIDs
    private let midValue: [UInt8]
    /// RFC 8852 rid of this encoding (simulcast), empty otherwise.
    let rid: String
    private let ridValue: [UInt8]
    /// 12-byte fixed header plus the one-byte extension block, padded to 32 bits.
    let headerLength: Int
    private var sequence: UInt16 = UInt16.random(in: 0...UInt16.max)
    let timestampOffset: UInt32 = UInt32.random(in: 0...UInt32.max)
    private(set) var history: RTPPacketCache?

    private(set) var packetsSent: UInt64 = 0
    /// Payload octets (RFC 3550 §6.4.1 sender's octet count excludes headers).
    private(set) var payloadOctetsSent: UInt64 = 0
    private(set) var retransmitted: UInt64 = 0
    /// The last media timestamp sent and when (monotonic ns): an SR maps "now" onto the RTP clock
    /// from them (RFC 3550 §6.4.1: the RTP timestamp of an SR corresponds to its NTP time).
    private var lastTimestamp: UInt32?
    private var lastTimestampAt: UInt64 = 0

    init(ssrc: UInt32, payloadType: UInt8, clockRate: UInt32, extensions: RTPExtensionIDs, mid: String, rid: String = "",
         historyPackets: Int) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.extensions = extensions
        midValue = Array(mid.utf8.prefix(16))
        self.rid = rid
        ridValue = Array(rid.utf8.prefix(16))
        var elements = 0
        if extensions.absSendTime != nil { elements += 1 + 3 }
        if extensions.transportSequence != nil { elements += 1 + 2 }
        if extensions.mid != nil, !midValue.isEmpty { elements += 1 + midValue.count }
        if extensions.rid != nil, !ridValue.isEmpty { elements += 1 + ridValue.count }
        headerLength = elements == 0 ? 12 : 12 + 4 + (elements + 3) / 4 * 4
        history = historyPackets > 0 ? RTPPacketCache(capacity: historyPackets, maxPacketSize: 1300) : nil
    }

    /// Writes the RTP header for the next packet at the start of `buffer` and advances the
    /// sequence number. `mediaTimestamp` is on the stream's clock from 0; the random offset
    /// (RFC 3550 §5.1) is added here.
    @inline(__always)
    func writeHeader(into buffer: UnsafeMutableRawBufferPointer, marker: Bool, mediaTimestamp: UInt32,
                     transportSequence: UInt16, absSendTime: UInt32) -> UInt16 {
        let number = sequence
        sequence &+= 1
        let timestamp = timestampOffset &+ mediaTimestamp
        buffer[0] = headerLength > 12 ? 0x90 : 0x80
        buffer[1] = (marker ? 0x80 : 0) | payloadType
        buffer.storeBytes(of: number.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        guard headerLength > 12 else { return number }
        // RFC 8285 §4.2: 0xBEDE, length in 32-bit words, then id/len-1 nibbles and data.
        buffer[12] = 0xBE
        buffer[13] = 0xDE
        buffer.storeBytes(of: UInt16((headerLength - 16) / 4).bigEndian, toByteOffset: 14, as: UInt16.self)
        var offset = 16
        if let id = extensions.absSendTime {
            buffer[offset] = id << 4 | 2
            buffer[offset + 1] = UInt8(truncatingIfNeeded: absSendTime >> 16)
            buffer[offset + 2] = UInt8(truncatingIfNeeded: absSendTime >> 8)
            buffer[offset + 3] = UInt8(truncatingIfNeeded: absSendTime)
            offset += 4
        }
        if let id = extensions.transportSequence {
            buffer[offset] = id << 4 | 1
            buffer.storeBytes(of: transportSequence.bigEndian, toByteOffset: offset + 1, as: UInt16.self)
            offset += 3
        }
        if let id = extensions.mid, !midValue.isEmpty {
            buffer[offset] = id << 4 | UInt8(midValue.count - 1)
            for (index, byte) in midValue.enumerated() { buffer[offset + 1 + index] = byte }
            offset += 1 + midValue.count
        }
        if let id = extensions.rid, !ridValue.isEmpty {
            buffer[offset] = id << 4 | UInt8(ridValue.count - 1)
            for (index, byte) in ridValue.enumerated() { buffer[offset + 1 + index] = byte }
            offset += 1 + ridValue.count
        }
        while offset < headerLength {
            buffer[offset] = 0  // padding bytes (RFC 8285 §4.2)
            offset += 1
        }
        return number
    }

    /// Writes the per-send extension values into a header ``writeHeader`` made earlier: the
    /// transport-wide sequence number and abs-send-time belong to the moment the packet leaves
    /// (the pacer may hold it), in sending order.
    @inline(__always)
    func stampSendTime(into buffer: UnsafeMutableRawBufferPointer, transportSequence: UInt16, absSendTime: UInt32) {
        guard headerLength > 12 else { return }
        var offset = 16
        if extensions.absSendTime != nil {
            buffer[offset + 1] = UInt8(truncatingIfNeeded: absSendTime >> 16)
            buffer[offset + 2] = UInt8(truncatingIfNeeded: absSendTime >> 8)
            buffer[offset + 3] = UInt8(truncatingIfNeeded: absSendTime)
            offset += 4
        }
        if extensions.transportSequence != nil {
            buffer.storeBytes(of: transportSequence.bigEndian, toByteOffset: offset + 1, as: UInt16.self)
        }
    }

    /// Counts a packet and keeps its clear bytes for retransmission.
    @inline(__always)
    func sent(_ packet: UnsafeRawBufferPointer, sequence number: UInt16, payloadLength: Int, mediaTimestamp: UInt32, at now: UInt64) {
        packetsSent &+= 1
        payloadOctetsSent &+= UInt64(payloadLength)
        if lastTimestamp != mediaTimestamp {
            lastTimestamp = mediaTimestamp
            lastTimestampAt = now
        }
        history?.store(packet, sequenceNumber: number)
    }

    func countRetransmission() { retransmitted &+= 1 }

    /// RFC 3550 §6.4.1 sender report for `wallClock` (Unix ns) = `now` (monotonic ns): the RTP
    /// timestamp is extrapolated from the last media timestamp at the stream's clock rate.
    func senderReport(wallClock: UInt64, now: UInt64) -> SenderReport? {
        guard let lastTimestamp else { return nil }
        let elapsed = now >= lastTimestampAt ? now - lastTimestampAt : 0
        let advance = UInt32(truncatingIfNeeded: elapsed * UInt64(clockRate) / 1_000_000_000)
        return SenderReport(ssrc: ssrc, ntpTime: NTPTime(unixNanoseconds: wallClock),
                            rtpTimestamp: timestampOffset &+ lastTimestamp &+ advance,
                            packetCount: UInt32(truncatingIfNeeded: packetsSent),
                            octetCount: UInt32(truncatingIfNeeded: payloadOctetsSent))
    }

    /// Calls `body` with the cached clear packet for a NACKed sequence number.
    func withHistoryPacket(_ number: UInt16, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        history?.withPacket(sequenceNumber: number, body) != nil
    }
}
