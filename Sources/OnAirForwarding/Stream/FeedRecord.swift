import OnAirRTP
import OnAirWire

/// One slot of a ``StreamFeed``: an admitted publisher packet (decrypted, its header read)
/// or a sender report, at fixed offsets. Written once by the publisher's worker, read in
/// place by every other worker with viewers of the stream.
package struct FeedRecord {
    /// `loss`: a video packet the publisher's worker gave up repairing (``Room/announceLoss``).
    package enum Kind: UInt8 { case video = 1, audio = 2, senderReport = 3, loss = 4 }

    static let kindOffset = 0, layerOffset = 1, flagsOffset = 2, rankOffset = 3, sequenceOffset = 4, lengthOffset = 6
    static let timestampOffset = 8, ssrcOffset = 12, timeOffset = 16, payloadStartOffset = 24, payloadEndOffset = 26
    static let leadOffset = 28, payloadTypeOffset = 30
    static let keyframeFlag: UInt8 = 1, preambleFlag: UInt8 = 2, markerFlag: UInt8 = 4, retransmissionFlag: UInt8 = 8
    static let switchedFlag: UInt8 = 16

    package let bytes: UnsafeRawBufferPointer

    @inline(__always)
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// A packet: `raw` as admitted, read through `view`.
    @inline(__always)
    static func write(_ kind: Kind, into slot: UnsafeMutableRawBufferPointer, raw: UnsafeRawBufferPointer, view: RTPPacketView,
                      layer: Int, rank: Int, flags: UInt8, lead: UInt16, now: MonoTime) {
        writeFixed(kind, into: slot, layer: layer, flags: flags | (view.marker ? markerFlag : 0), sequence: view.sequence,
                   timestamp: view.timestamp, ssrc: view.ssrc, time: now.nanoseconds)
        slot[rankOffset] = UInt8(bitPattern: Int8(clamping: rank))
        slot[payloadTypeOffset] = view.payloadType
        slot.storeBytes(of: UInt16(raw.count), toByteOffset: lengthOffset, as: UInt16.self)
        slot.storeBytes(of: UInt16(view.payloadRange.lowerBound), toByteOffset: payloadStartOffset, as: UInt16.self)
        slot.storeBytes(of: UInt16(view.payloadRange.upperBound), toByteOffset: payloadEndOffset, as: UInt16.self)
        slot.storeBytes(of: lead, toByteOffset: leadOffset, as: UInt16.self)
        UnsafeMutableRawBufferPointer(rebasing: slot[StreamFeed.headerSize..<(StreamFeed.headerSize + raw.count)]).copyMemory(from: raw)
    }

    /// A sender report (RFC 3550 §6.4.1) of video layer `layer`, or of the audio (-1).
    static func writeSenderReport(into slot: UnsafeMutableRawBufferPointer, layer: Int, ssrc: UInt32, ntp: NTPTime, rtpTimestamp: UInt32) {
        writeFixed(.senderReport, into: slot, layer: layer, flags: 0, sequence: 0, timestamp: rtpTimestamp, ssrc: ssrc,
                   time: ntp.rawValue)
        slot.storeBytes(of: UInt16(0), toByteOffset: lengthOffset, as: UInt16.self)
    }

    /// A packet of video layer `layer` that will never come.
    static func writeLoss(into slot: UnsafeMutableRawBufferPointer, layer: Int, sequence: UInt16) {
        writeFixed(.loss, into: slot, layer: layer, flags: 0, sequence: sequence, timestamp: 0, ssrc: 0, time: 0)
        slot.storeBytes(of: UInt16(0), toByteOffset: lengthOffset, as: UInt16.self)
    }

    @inline(__always)
    private static func writeFixed(_ kind: Kind, into slot: UnsafeMutableRawBufferPointer, layer: Int, flags: UInt8, sequence: UInt16,
                                   timestamp: UInt32, ssrc: UInt32, time: UInt64) {
        slot[kindOffset] = kind.rawValue
        slot[layerOffset] = UInt8(bitPattern: Int8(clamping: layer))
        slot[flagsOffset] = flags
        slot.storeBytes(of: sequence, toByteOffset: sequenceOffset, as: UInt16.self)
        slot.storeBytes(of: timestamp, toByteOffset: timestampOffset, as: UInt32.self)
        slot.storeBytes(of: ssrc, toByteOffset: ssrcOffset, as: UInt32.self)
        slot.storeBytes(of: time, toByteOffset: timeOffset, as: UInt64.self)
    }

    package var kind: Kind? { Kind(rawValue: bytes[Self.kindOffset]) }
    package var layer: Int { Int(Int8(bitPattern: bytes[Self.layerOffset])) }
    /// The rid's rank in the offer (``StreamSource/videoRIDs``), or -1.
    package var rank: Int { Int(Int8(bitPattern: bytes[Self.rankOffset])) }
    package var isKeyframe: Bool { flag(Self.keyframeFlag) }
    package var isPreamble: Bool { flag(Self.preambleFlag) }
    package var isRetransmission: Bool { flag(Self.retransmissionFlag) }
    /// Audio: the publisher's audio source changed with this packet (``SourceLock``).
    package var audioSwitched: Bool { flag(Self.switchedFlag) }
    package var lead: UInt16 { bytes.load(fromByteOffset: Self.leadOffset, as: UInt16.self) }
    package var time: UInt64 { bytes.load(fromByteOffset: Self.timeOffset, as: UInt64.self) }
    package var sequence: UInt16 { bytes.load(fromByteOffset: Self.sequenceOffset, as: UInt16.self) }
    package var ssrc: UInt32 { bytes.load(fromByteOffset: Self.ssrcOffset, as: UInt32.self) }
    package var timestamp: UInt32 { bytes.load(fromByteOffset: Self.timestampOffset, as: UInt32.self) }

    /// The packet as admitted.
    @inline(__always)
    package var packet: UnsafeRawBufferPointer {
        let length = Int(bytes.load(fromByteOffset: Self.lengthOffset, as: UInt16.self))
        return UnsafeRawBufferPointer(rebasing: bytes[StreamFeed.headerSize..<(StreamFeed.headerSize + length)])
    }

    /// The packet's header as the publisher's worker read it (no second parse).
    @inline(__always)
    package var view: RTPPacketView {
        let start = Int(bytes.load(fromByteOffset: Self.payloadStartOffset, as: UInt16.self))
        let end = Int(bytes.load(fromByteOffset: Self.payloadEndOffset, as: UInt16.self))
        return RTPPacketView(payloadType: bytes[Self.payloadTypeOffset], marker: flag(Self.markerFlag),
                             sequence: bytes.load(fromByteOffset: Self.sequenceOffset, as: UInt16.self),
                             timestamp: timestamp, ssrc: ssrc, payloadRange: start..<end)
    }

    @inline(__always)
    private func flag(_ bit: UInt8) -> Bool { bytes[Self.flagsOffset] & bit != 0 }
}
