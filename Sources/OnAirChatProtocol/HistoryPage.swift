/// Which slice of a room's messages to read. Every page comes back in ascending id order.
public enum HistoryPage: Sendable, Equatable {
    /// The newest `limit` messages.
    case latest(limit: Int)
    /// The `limit` messages just before `id` (older history, scrolling up).
    case before(id: Int64, limit: Int)
    /// The `limit` messages just after `id` (what a reconnecting client missed).
    case after(id: Int64, limit: Int)

    public var limit: Int {
        switch self {
        case .latest(let limit), .before(_, let limit), .after(_, let limit): return limit
        }
    }
}
