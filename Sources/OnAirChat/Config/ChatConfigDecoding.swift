/// Strict config decoding for `chat.yaml`: a missing key keeps its default, an unknown key is
/// an error that names it (a typo must never become a silently ignored setting).
///
/// The relay has the same rule in its own module; the two are kept separate because OnAirChat
/// must not import OnAirRelay (a candidate for a shared config module later).
struct ChatConfigKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// A key in `chat.yaml` that its section does not define.
public struct UnknownChatConfigKey: Error, CustomStringConvertible {
    public let path: String
    public let known: [String]
    public var description: String {
        "unknown config key '\(path)' (known here: \(known.joined(separator: ", ")))"
    }
}

extension Decoder {
    /// A keyed container that first refuses keys outside `K`.
    func chatStrictContainer<K: CodingKey & CaseIterable>(keyedBy: K.Type) throws -> KeyedDecodingContainer<K> {
        let everything = try container(keyedBy: ChatConfigKey.self)
        let known = K.allCases.map(\.stringValue)
        if let stray = everything.allKeys.first(where: { !known.contains($0.stringValue) }) {
            let path = (codingPath.map(\.stringValue) + [stray.stringValue]).joined(separator: ".")
            throw UnknownChatConfigKey(path: path, known: known)
        }
        return try container(keyedBy: K.self)
    }
}

extension KeyedDecodingContainer {
    /// The value under `key`, or `fallback` when the key is absent.
    func or<T: Decodable>(_ key: Key, _ fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }
}
