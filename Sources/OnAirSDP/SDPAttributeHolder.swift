/// Anything that carries an ordered list of `a=` lines: a session, a media section, an SDP
/// fragment. The accessors below read the attributes that JSEP (RFC 8829 §5.8) relies on.
///
/// Typed accessors skip values that do not parse; `SessionDescription.parse` has already rejected
/// those, so they only matter for descriptions built by hand.
public protocol SDPAttributeHolder {
    var attributes: [SDPAttribute] { get set }
}

extension SDPAttributeHolder {
    public func attributes(named name: String) -> [SDPAttribute] {
        attributes.filter { $0.name == name }
    }

    /// The value of the first attribute named `name` ("" for a property attribute).
    public func value(of name: String) -> String? {
        guard let attribute = attributes.first(where: { $0.name == name }) else { return nil }
        return attribute.value ?? ""
    }

    public func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.name == name }
    }

    /// Every attribute of `type` that parses, in order.
    public func all<Value: SDPAttributeValue>(_ type: Value.Type) -> [Value] {
        attributes.compactMap { attribute in
            guard attribute.name == Value.attributeName, let text = attribute.value else { return nil }
            return try? Value(attributeValue: text)
        }
    }

    public func first<Value: SDPAttributeValue>(_ type: Value.Type) -> Value? {
        all(type).first
    }

    public mutating func append(_ name: String, _ value: String? = nil) {
        attributes.append(SDPAttribute(name, value))
    }

    public mutating func append<Value: SDPAttributeValue>(_ typed: Value) {
        attributes.append(SDPAttribute(typed))
    }

    // MARK: RFC 8839 §5 ICE, RFC 8122 / RFC 5763 DTLS

    public var iceUfrag: String? { value(of: "ice-ufrag") }
    public var icePassword: String? { value(of: "ice-pwd") }
    /// RFC 8839 §5.6 `a=ice-options:` tokens ("trickle", "ice2", "renomination").
    public var iceOptions: [String] {
        attributes(named: "ice-options").flatMap { SDPText.fields($0.value ?? "").map(String.init) }
    }
    /// RFC 8839 §5.3 `a=ice-lite` (session level).
    public var iceLite: Bool { hasAttribute("ice-lite") }
    public var fingerprints: [DTLSFingerprint] { all(DTLSFingerprint.self) }
    public var setup: DTLSSetup? { first(DTLSSetup.self) }
    public var candidates: [ICECandidate] { all(ICECandidate.self) }
    /// RFC 8840 §8.2 `a=end-of-candidates`.
    public var endOfCandidates: Bool { hasAttribute("end-of-candidates") }

    // MARK: RFC 9143 BUNDLE, RFC 5888 groups, RFC 3264 direction

    /// RFC 5888 §4 `a=mid:`.
    public var mid: String? { value(of: "mid") }
    public var groups: [SDPGroup] { all(SDPGroup.self) }
    /// The mids of the first BUNDLE group, or nil when there is none.
    public var bundleMids: [String]? {
        groups.first(where: { $0.semantics == SDPGroup.bundle })?.mids
    }
    /// The direction attribute, or nil when none is written (sendrecv is then implied).
    public var direction: MediaDirection? {
        attributes.last(where: { MediaDirection(rawValue: $0.name) != nil }).flatMap { MediaDirection(rawValue: $0.name) }
    }
}
