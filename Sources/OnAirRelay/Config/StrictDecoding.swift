/// Config decoding that keeps defaults for missing keys and refuses unknown ones, so that a
/// typo in `relay.yaml` is an error naming the key instead of a silently ignored setting.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

/// A config key that the section does not know.
public struct UnknownConfigKey: Error, CustomStringConvertible {
    public let path: String
    public let known: [String]
    public var description: String {
        "unknown config key '\(path)' (known here: \(known.joined(separator: ", ")))"
    }
}

extension Decoder {
    func strictContainer<K: CodingKey & CaseIterable>(keyedBy: K.Type) throws -> KeyedDecodingContainer<K> {
        let all = try container(keyedBy: AnyKey.self)
        let known = K.allCases.map(\.stringValue)
        for key in all.allKeys where !known.contains(key.stringValue) {
            let path = (codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            throw UnknownConfigKey(path: path, known: known)
        }
        return try container(keyedBy: K.self)
    }
}

extension KeyedDecodingContainer {
    func value<T: Decodable>(_ key: Key, default fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }
}
