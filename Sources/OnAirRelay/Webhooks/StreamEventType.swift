import OnAirWebhooks

/// The event types a subscriber can ask for.
enum StreamEventType {
    static let all = [StreamEvent.started, StreamEvent.ended, StreamEvent.viewers]

    /// The stored form of a subscription's filter: `*` for every type, else `,a,b,` so that
    /// SQL can match one type with `instr(event_types, ',type,')`.
    static func filter(_ types: [String]) -> String {
        let chosen = Set(types)
        if chosen.isEmpty || chosen == Set(all) { return "*" }
        return "," + all.filter(chosen.contains).joined(separator: ",") + ","
    }

    /// The types a stored filter stands for.
    static func types(ofFilter filter: String) -> [String] {
        filter == "*" ? all : filter.split(separator: ",").map(String.init)
    }
}
