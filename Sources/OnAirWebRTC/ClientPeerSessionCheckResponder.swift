import OnAirSTUN
import OnAirWire

/// Answers the connectivity checks a full-ICE answerer (Pion, libwebrtc, aiortc) sends to us,
/// the controlling agent (RFC 8445 §7.3). An ICE-lite peer never sends any.
///
/// A controlled peer typically nominates a pair only after its own check on it succeeded, so
/// these answers are what lets it select the pair we nominated (RFC 8445 §7.3.1.5).
struct ClientPeerSessionCheckResponder: Sendable {
    /// What to do with a Binding request.
    enum Outcome: Equatable {
        /// An authenticated check from `source`: send the success response.
        case accepted(STUNDatagram)
        /// Send this error response (RFC 8489 §6.3.4); the check is not valid.
        case rejected(STUNDatagram, STUNErrorCode)
        /// Not a request we answer (responses, indications, garbage).
        case ignored
    }

    let localUfrag: String
    let remoteUfrag: String
    private let localKey: [UInt8]

    init(localUfrag: String, localPassword: String, remoteUfrag: String) {
        self.localUfrag = localUfrag
        self.remoteUfrag = remoteUfrag
        self.localKey = Array(localPassword.utf8)
    }

    func answer(_ bytes: [UInt8], from source: TransportAddress) -> Outcome {
        guard let request = try? STUNMessage.parse(bytes), request.type.messageClass == .request else { return .ignored }
        if request.fingerprint != nil, !STUNMessage.verifyFingerprint(bytes) { return .ignored }
        // RFC 8489 §9.1.3: the peer's checks carry USERNAME "ours:theirs", signed with our password.
        guard let username = request.username, request.messageIntegrity != nil else {
            return reject(request, .badRequest, to: source, signed: false)
        }
        guard username == localUfrag + ":" + remoteUfrag, STUNMessage.verifyMessageIntegrity(bytes, key: localKey) else {
            return reject(request, .unauthenticated, to: source, signed: false)
        }
        let unknown = request.unknownComprehensionRequiredAttributes()
        guard unknown.isEmpty else {
            let response = STUNMessage.errorResponse(to: request, error: .unknownAttribute, unknownAttributes: unknown)
            return .rejected(STUNDatagram(bytes: response.encode(integrityKey: localKey, fingerprint: true), address: source),
                             .unknownAttribute)
        }
        guard request.type.method == .binding, request.priority != nil else {
            return reject(request, .badRequest, to: source, signed: true)
        }
        // RFC 8445 §7.3.1.1: a peer that also claims controlling is in conflict with us. We
        // never give up the controlling role (an answerer is controlled, §6.1.1), so we answer
        // 487 whatever the tie-breakers say; the peer switches to controlled.
        guard request.iceControlling == nil else {
            return reject(request, .roleConflict, to: source, signed: true)
        }
        let response = STUNMessage(type: .bindingSuccessResponse, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(source, transactionID: request.transactionID)])
        return .accepted(STUNDatagram(bytes: response.encode(integrityKey: localKey, fingerprint: true), address: source))
    }

    /// Authentication failures go unsigned (RFC 8489 §9.1.3); the rest are signed.
    private func reject(_ request: STUNMessage, _ error: STUNErrorCode, to source: TransportAddress, signed: Bool) -> Outcome {
        let response = STUNMessage.errorResponse(to: request, error: error)
        return .rejected(STUNDatagram(bytes: response.encode(integrityKey: signed ? localKey : nil, fingerprint: true), address: source),
                         error)
    }
}
