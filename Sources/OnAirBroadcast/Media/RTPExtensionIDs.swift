import OnAirRTP
import OnAirSDP

/// The one-byte header extensions (RFC 8285 §4.2) we write on a stream, with the ids the answer
/// kept: abs-send-time and transport-wide sequence numbers feed the receiver's bandwidth
/// estimate (REMB or transport-cc feedback), mid lets it demultiplex before it knows our SSRC
/// (RFC 8843 §15).
struct RTPExtensionIDs: Sendable, Equatable {
    var absSendTime: UInt8?
    var transportSequence: UInt8?
    var mid: UInt8?

    init(absSendTime: UInt8? = nil, transportSequence: UInt8? = nil, mid: UInt8? = nil) {
        self.absSendTime = absSendTime
        self.transportSequence = transportSequence
        self.mid = mid
    }

    init(_ media: NegotiatedMedia) {
        absSendTime = media.extensionID(for: WellKnownHeaderExtensions.absSendTimeURI)
        transportSequence = media.extensionID(for: WellKnownHeaderExtensions.transportSequenceNumberURI)
        mid = media.extensionID(for: WellKnownHeaderExtensions.midURI)
        // One-byte form carries ids 1...14 only (RFC 8285 §4.2).
        if let id = absSendTime, !(1...14).contains(id) { absSendTime = nil }
        if let id = transportSequence, !(1...14).contains(id) { transportSequence = nil }
        if let id = mid, !(1...14).contains(id) { mid = nil }
    }

    var isEmpty: Bool { absSendTime == nil && transportSequence == nil && mid == nil }
}
