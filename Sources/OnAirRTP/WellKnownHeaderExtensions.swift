import OnAirWire

/// Values of the header extensions a WebRTC SFU reads and writes, each with its
/// `a=extmap` URI. Encoders return element data; decoders take element data.
public enum WellKnownHeaderExtensions {
    public static let absSendTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let transportSequenceNumberURI =
        "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    public static let audioLevelURI = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

    // MARK: abs-send-time: 24-bit 6.18 fixed-point seconds

    /// The abs-send-time value of an NTP time: bits 14...37 of it (6 integer bits of
    /// seconds, 18 fraction bits), so it wraps every 64 s.
    public static func absSendTime(_ time: NTPTime) -> UInt32 {
        UInt32(truncatingIfNeeded: time.rawValue >> 14) & 0x00FF_FFFF
    }

    public static func encodeAbsSendTime(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    public static func decodeAbsSendTime(_ data: some Collection<UInt8>) throws(WireError) -> UInt32 {
        guard data.count == 3 else { throw .invalid("abs-send-time needs 3 bytes, got \(data.count)") }
        return data.reduce(0) { $0 << 8 | UInt32($1) }
    }

    // MARK: transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2)

    public static func encodeTransportSequenceNumber(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// Reads the first 2 bytes; the -02 variant appends 2 more that are ignored here.
    public static func decodeTransportSequenceNumber(_ data: some Collection<UInt8>) throws(WireError) -> UInt16 {
        guard data.count >= 2 else { throw .invalid("transport-wide sequence number needs 2 bytes, got \(data.count)") }
        return data.prefix(2).reduce(0) { $0 << 8 | UInt16($1) }
    }

    // MARK: sdes:mid (RFC 8843 §15.1): the MID as UTF-8, no terminator

    public static func encodeMID(_ mid: String) -> [UInt8] { Array(mid.utf8) }

    public static func decodeMID(_ data: some Collection<UInt8>) throws(WireError) -> String {
        guard !data.isEmpty else { throw .invalid("sdes:mid extension is empty") }
        // Some senders pad the value with NULs; they are not part of the MID.
        let trimmed = Array(data).prefix { $0 != 0 }
        return String(decoding: trimmed, as: UTF8.self)
    }

    // MARK: audio level (RFC 6464 §3): V flag and level in -dBov (0...127)

    public static func encodeAudioLevel(voiceActivity: Bool, level: UInt8) -> [UInt8] {
        [(voiceActivity ? 0x80 : 0) | min(level, 127)]
    }

    public static func decodeAudioLevel(
        _ data: some Collection<UInt8>
    ) throws(WireError) -> (voiceActivity: Bool, level: UInt8) {
        guard let first = data.first else { throw .invalid("audio level extension is empty") }
        return (first & 0x80 != 0, first & 0x7F)
    }
}

extension RTPHeaderExtensionElement {
    /// abs-send-time element: 24-bit 6.18 fixed-point seconds.
    public static func absSendTime(id: UInt8, _ value: UInt32) -> RTPHeaderExtensionElement {
        RTPHeaderExtensionElement(id: id, data: WellKnownHeaderExtensions.encodeAbsSendTime(value))
    }

    /// Transport-wide sequence number element (2 bytes).
    public static func transportSequenceNumber(id: UInt8, _ value: UInt16) -> RTPHeaderExtensionElement {
        RTPHeaderExtensionElement(id: id, data: WellKnownHeaderExtensions.encodeTransportSequenceNumber(value))
    }

    /// sdes:mid element.
    public static func mid(id: UInt8, _ mid: String) -> RTPHeaderExtensionElement {
        RTPHeaderExtensionElement(id: id, data: WellKnownHeaderExtensions.encodeMID(mid))
    }

    /// Client-to-mixer audio level element (RFC 6464).
    public static func audioLevel(id: UInt8, voiceActivity: Bool, level: UInt8) -> RTPHeaderExtensionElement {
        RTPHeaderExtensionElement(id: id, data: WellKnownHeaderExtensions.encodeAudioLevel(voiceActivity: voiceActivity, level: level))
    }
}
