/// The rooms a token is for, from its `room` claim: one room id (`42`), every room (`*`),
/// or the rooms whose id starts with a prefix (`team-*`). A `*` anywhere but at the end is
/// refused, so that a pattern means what it looks like.
public enum RoomPattern: Sendable, Hashable, CustomStringConvertible {
    case exact(String)
    case any
    case prefix(String)

    /// Parses a `room` claim; nil when the text is empty or has a `*` before its end.
    public init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        if text == "*" { self = .any; return }
        let stars = text.filter { $0 == "*" }.count
        if stars == 0 { self = .exact(text); return }
        guard stars == 1, text.hasSuffix("*") else { return nil }
        self = .prefix(String(text.dropLast()))
    }

    public func matches(_ room: String) -> Bool {
        switch self {
        case .exact(let id): return id == room
        case .any: return true
        case .prefix(let prefix): return room.hasPrefix(prefix)
        }
    }

    /// The claim's text again (`42`, `*`, `team-*`).
    public var description: String {
        switch self {
        case .exact(let id): return id
        case .any: return "*"
        case .prefix(let prefix): return prefix + "*"
        }
    }
}
