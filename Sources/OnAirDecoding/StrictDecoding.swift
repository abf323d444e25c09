/// Decoding that keeps defaults for missing keys and refuses unknown ones, so that a typo in
/// `relay.yaml`, `chat.yaml` or a request body is an error naming the key instead of a
/// silently ignored setting.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// A key that its object does not define.
public struct UnknownKey: Error, CustomStringConvertible {
    /// Dotted, from the top of the document.
    public let path: String
    public let known: [String]
    public var description: String {
        "unknown config key '\(path)' (known here: \(known.joined(separator: ", ")))"
    }

    /// The one in `error`, wherever a decoder nested it (Yams wraps errors thrown by
    /// `init(from:)` in `dataCorrupted`).
    public static func find(in error: any Error) -> UnknownKey? {
        var current: (any Error)? = error
        while let next = current {
            if let unknown = next as? UnknownKey { return unknown }
            guard let decoding = next as? DecodingError else { return nil }
            switch decoding {
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                 .keyNotFound(_, let context):
                current = context.underlyingError
            @unknown default:
                return nil
            }
        }
        return nil
    }
}

extension Decoder {
    /// A keyed container that first refuses keys outside `K`.
    public func strictContainer<K: CodingKey & CaseIterable>(keyedBy: K.Type) throws -> KeyedDecodingContainer<K> {
        let everything = try container(keyedBy: AnyCodingKey.self)
        let known = K.allCases.map(\.stringValue)
        if let stray = everything.allKeys.first(where: { !known.contains($0.stringValue) }) {
            let path = (codingPath.map(\.stringValue) + [stray.stringValue]).joined(separator: ".")
            throw UnknownKey(path: path, known: known)
        }
        return try container(keyedBy: K.self)
    }
}

extension KeyedDecodingContainer {
    /// The value under `key`, or `fallback` when the key is absent.
    public func value<T: Decodable>(_ key: Key, default fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }
}

extension DecodingError {
    /// The error in a config file's terms: the dotted path of the key and what it needs.
    public var readable: String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch self {
        case .typeMismatch(let type, let c): return "'\(path(c))' should be \(type): \(c.debugDescription)"
        case .valueNotFound(let type, let c): return "'\(path(c))' is missing a \(type) value"
        case .keyNotFound(let key, let c): return "'\(path(c))' needs the key '\(key.stringValue)'"
        case .dataCorrupted(let c): return "\(path(c).isEmpty ? "YAML" : "'\(path(c))'"): \(c.debugDescription)"
        @unknown default: return "\(self)"
        }
    }
}
