import OnAirRTP
import OnAirWire

/// One slot of a ``MediaTapRing``: a packet's numbers and payload, or a sender report, laid
/// out at fixed offsets (written by the producer, read in place by the consumer).
struct TapRecord {
    enum Kind: UInt8 { case video = 1, audio = 2, senderReport = 3 }

    static let kindOffset = 0, layerOffset = 1, flagsOffset = 2, ridLengthOffset = 3, sequenceOffset = 4
    static let payloadLengthOffset = 6, timestampOffset = 8, timeOffset = 16, ridOffset = 24
    static let primaryFlag: UInt8 = 1, markerFlag: UInt8 = 2, ridFlag: UInt8 = 4

    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// `time`: arrival in monotonic nanoseconds, or a sender report's 64-bit NTP time.
    @inline(__always)
    static func write(_ kind: Kind, into slot: UnsafeMutableRawBufferPointer, layer: Int, rid: String?, isPrimary: Bool,
                      marker: Bool, sequence: UInt16, timestamp: UInt32, time: UInt64, payload: UnsafeRawBufferPointer) {
        slot[kindOffset] = kind.rawValue
        slot[layerOffset] = UInt8(bitPattern: Int8(clamping: layer))
        slot[flagsOffset] = (isPrimary ? primaryFlag : 0) | (marker ? markerFlag : 0) | (rid != nil ? ridFlag : 0)
        slot.storeBytes(of: sequence, toByteOffset: sequenceOffset, as: UInt16.self)
        slot.storeBytes(of: UInt16(payload.count), toByteOffset: payloadLengthOffset, as: UInt16.self)
        slot.storeBytes(of: timestamp, toByteOffset: timestampOffset, as: UInt32.self)
        slot.storeBytes(of: time, toByteOffset: timeOffset, as: UInt64.self)
        var ridLength = 0
        if let rid {
            for byte in rid.utf8 where ridLength < MediaTapRing.maximumRIDLength {
                slot[ridOffset + ridLength] = byte
                ridLength += 1
            }
        }
        slot[ridLengthOffset] = UInt8(ridLength)
        if !payload.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: slot[MediaTapRing.headerSize..<(MediaTapRing.headerSize + payload.count)])
                .copyMemory(from: payload)
        }
    }

    @inline(__always)
    func deliver(to consumer: some MediaTapConsumer) {
        let flags = bytes[Self.flagsOffset]
        let layer = Int(Int8(bitPattern: bytes[Self.layerOffset]))
        let timestamp = bytes.load(fromByteOffset: Self.timestampOffset, as: UInt32.self)
        let time = bytes.load(fromByteOffset: Self.timeOffset, as: UInt64.self)
        let sequence = bytes.load(fromByteOffset: Self.sequenceOffset, as: UInt16.self)
        let length = Int(bytes.load(fromByteOffset: Self.payloadLengthOffset, as: UInt16.self))
        let payload = UnsafeRawBufferPointer(rebasing: bytes[MediaTapRing.headerSize..<(MediaTapRing.headerSize + length)])
        let marker = flags & Self.markerFlag != 0
        let isPrimary = flags & Self.primaryFlag != 0
        switch Kind(rawValue: bytes[Self.kindOffset]) {
        case .video:
            consumer.receiveVideo(layer: layer, rid: rid(flags), isPrimary: isPrimary, sequence: sequence, timestamp: timestamp,
                                  marker: marker, payload: payload, now: MonoTime(nanoseconds: time))
        case .audio:
            consumer.receiveAudio(sequence: sequence, timestamp: timestamp, marker: marker, payload: payload,
                                  now: MonoTime(nanoseconds: time))
        case .senderReport:
            consumer.senderReport(layer: layer < 0 ? nil : layer, rid: rid(flags), isPrimary: isPrimary,
                                  ntp: NTPTime(rawValue: time),
                                  rtpTimestamp: timestamp)
        case nil:
            break
        }
    }

    private func rid(_ flags: UInt8) -> String? {
        guard flags & Self.ridFlag != 0 else { return nil }
        let length = Int(bytes[Self.ridLengthOffset])
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[Self.ridOffset..<(Self.ridOffset + length)]), as: UTF8.self)
    }
}
