import OnAirWire

/// What ``ICELiteAgent/receive(_:from:now:)`` decided about one datagram.
public enum ICEReceiveResult: Equatable, Sendable {
    /// A valid connectivity check: send the success response. `nominated` is the source address
    /// when the check carried USE-CANDIDATE; it is now ``ICELiteAgent/selectedAddress``.
    case respond(STUNDatagram, nominated: TransportAddress?)
    /// A request we refuse: send this error response.
    case reject(STUNDatagram, error: STUNErrorCode)
    /// Nothing to send.
    case ignore(Reason)

    /// Why a datagram produced no answer.
    public enum Reason: Equatable, Sendable {
        /// Not a STUN message (RFC 7983 demux said so); the caller should route it elsewhere.
        case notSTUN
        /// Unparseable and not a request we could answer.
        case malformed(WireError)
        /// FINGERPRINT present but wrong: RFC 8489 §7.3 treats that as not STUN at all.
        case badFingerprint
        /// Indications (e.g. Binding keepalives) are accepted silently and refresh nothing.
        case indication
        /// A lite agent sends no requests, so responses are never ours.
        case response
    }

    /// The datagram to send, if any.
    public var datagram: STUNDatagram? {
        switch self {
        case .respond(let datagram, _), .reject(let datagram, _): return datagram
        case .ignore: return nil
        }
    }

    /// The address this check nominated, if it did.
    public var nominatedAddress: TransportAddress? {
        if case .respond(_, let nominated) = self { return nominated }
        return nil
    }

    /// The error code of a rejection.
    public var error: STUNErrorCode? {
        if case .reject(_, let error) = self { return error }
        return nil
    }
}
