/// Why bytes from the network could not be parsed. Parsers throw these, never trap.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before a field it announced.
    case truncated
    /// A field holds a value the format does not allow.
    case invalid(String)

    public var description: String {
        switch self {
        case .truncated: return "truncated input"
        case .invalid(let reason): return reason
        }
    }
}
