import OnAirRTP
import OnAirSDP

/// The one-byte header extensions (RFC 8285 §4.2) we write on a stream, with the ids the answer
/// kept: abs-send-time and transport-wide sequence numbers feed the receiver's bandwidth
/// estimate (REMB or transport-cc feedback), mid lets it demultiplex before it knows our SSRC
/// (RFC 8843 §15), rid names a simulcast encoding (RFC 8852 §3.1).
struct RTPExtensionIDs: Sendable, Equatable {
    var absSendTime: UInt8?
    var transportSequence: UInt8?
    var mid: UInt8?
    var rid: UInt8?

    init(absSendTime: UInt8? = nil, transportSequence: UInt8? = nil, mid: UInt8? = nil, rid: UInt8? = nil) {
        self.absSendTime = absSendTime
        self.transportSequence = transportSequence
        self.mid = mid
        self.rid = rid
    }

    init(_ media: NegotiatedMedia) {
        absSendTime = media.extensionID(for: WellKnownHeaderExtensions.absSendTimeURI)
        transportSequence = media.extensionID(for: WellKnownHeaderExtensions.transportSequenceNumberURI)
        mid = media.extensionID(for: WellKnownHeaderExtensions.midURI)
        rid = media.rids.isEmpty ? nil : media.extensionID(for: RTPHeaderExtensionURI.rtpStreamID)
        // One-byte form carries ids 1...14 only (RFC 8285 §4.2).
        if let id = absSendTime, !(1...14).contains(id) { absSendTime = nil }
        if let id = transportSequence, !(1...14).contains(id) { transportSequence = nil }
        if let id = mid, !(1...14).contains(id) { mid = nil }
        if let id = rid, !(1...14).contains(id) { rid = nil }
    }

    var isEmpty: Bool { absSendTime == nil && transportSequence == nil && mid == nil && rid == nil }
}
