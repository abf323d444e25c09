import Foundation

/// A JSON request body of the relay's and the chat's HTTP APIs, decoded as strictly as their
/// config files: a body type decodes its object with ``Swift/Decoder/strictContainer(keyedBy:)``,
/// and a field it does not know, a missing one or one of the wrong type is refused with the
/// field's name, in words for the caller rather than Swift's.
public enum JSONRequestBody {
    /// What is wrong with a body.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        /// Not JSON at all (HTTP 400), or JSON with a wrong field (HTTP 422).
        public let isSyntax: Bool
        public let description: String
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(Problem) -> T {
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            throw Problem(isSyntax: true, description: "the body is not JSON")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw Problem(isSyntax: false, description: describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let unknown = UnknownKey.find(in: error) {
            return "unknown field \"\(unknown.path)\" (known: \(unknown.known.joined(separator: ", ")))"
        }
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            (context.codingPath + (key.map { [$0] } ?? [])).map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing field \"\(path(context, key))\""
        case .typeMismatch(let type, let context):
            return context.codingPath.isEmpty ? "the body must be a JSON object"
                : "field \"\(path(context))\" must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "field \"\(path(context))\" must be \(typeName(type)), not null"
        case .dataCorrupted(let context):
            return "field \"\(path(context))\": \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type, is UInt32.Type: return "a whole number"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array<") { return "an array" }
            if name.hasPrefix("Dictionary<") { return "an object" }
            return name
        }
    }
}
