import OnAirWire

/// Typed views of the attributes ICE uses. Each returns nil when the attribute is absent or its
/// value is malformed, so callers treat "broken" like "missing" (which RFC 8489 §6.3 answers
/// with 400 in a request).
extension STUNMessage {
    /// RFC 8489 §14.3 USERNAME
    public var username: String? { try? attribute(.username)?.decodeString() }
    /// RFC 8489 §14.14 SOFTWARE
    public var software: String? { try? attribute(.software)?.decodeString() }
    /// RFC 8445 §16.1 PRIORITY
    public var priority: UInt32? { try? attribute(.priority)?.decodeUInt32() }
    /// RFC 8445 §16.1 USE-CANDIDATE
    public var useCandidate: Bool { attribute(.useCandidate) != nil }
    /// RFC 8445 §16.1 ICE-CONTROLLED tie-breaker
    public var iceControlled: UInt64? { try? attribute(.iceControlled)?.decodeUInt64() }
    /// RFC 8445 §16.1 ICE-CONTROLLING tie-breaker
    public var iceControlling: UInt64? { try? attribute(.iceControlling)?.decodeUInt64() }
    /// RFC 8489 §14.2 XOR-MAPPED-ADDRESS, unmasked with this message's transaction ID.
    public var xorMappedAddress: TransportAddress? {
        try? attribute(.xorMappedAddress)?.decodeXORAddress(transactionID: transactionID)
    }
    /// RFC 8489 §14.1 MAPPED-ADDRESS
    public var mappedAddress: TransportAddress? { try? attribute(.mappedAddress)?.decodeAddress() }
    /// RFC 8489 §14.8 ERROR-CODE
    public var errorCode: STUNErrorCode? { try? attribute(.errorCode)?.decodeErrorCode() }
    /// RFC 8489 §14.13 UNKNOWN-ATTRIBUTES
    public var unknownAttributes: [STUNAttributeType]? { try? attribute(.unknownAttributes)?.decodeAttributeTypes() }
    /// The 20-byte HMAC of MESSAGE-INTEGRITY as received (verify with ``verifyMessageIntegrity(_:key:)``).
    public var messageIntegrity: [UInt8]? { attribute(.messageIntegrity)?.value }
    /// The FINGERPRINT value as received (verify with ``verifyFingerprint(_:)``).
    public var fingerprint: UInt32? { try? attribute(.fingerprint)?.decodeUInt32() }

    /// RFC 8489 §6.3.1: the comprehension-required attributes (0x0000-0x7FFF) of this message that
    /// are not in `understood`, each once, in order of appearance. A request with any of them
    /// must be answered with 420 listing them in UNKNOWN-ATTRIBUTES.
    public func unknownComprehensionRequiredAttributes(
        understood: Set<STUNAttributeType> = STUNAttributeType.understood
    ) -> [STUNAttributeType] {
        var unknown: [STUNAttributeType] = []
        for attribute in attributes where attribute.type.isComprehensionRequired
            && !understood.contains(attribute.type) && !unknown.contains(attribute.type) {
            unknown.append(attribute.type)
        }
        return unknown
    }

    /// RFC 8489 §6.3.4: an error response to `request` (same transaction ID, same method).
    /// A 420 carries UNKNOWN-ATTRIBUTES. The caller adds MESSAGE-INTEGRITY when encoding only if
    /// the request was authenticated (§9.1.3).
    public static func errorResponse(
        to request: STUNMessage, error: STUNErrorCode, unknownAttributes: [STUNAttributeType] = []
    ) -> STUNMessage {
        var attributes = [STUNAttribute.errorCode(error)]
        if !unknownAttributes.isEmpty { attributes.append(.unknownAttributes(unknownAttributes)) }
        return STUNMessage(
            type: STUNMessageType(method: request.type.method, messageClass: .errorResponse),
            transactionID: request.transactionID, attributes: attributes)
    }
}
