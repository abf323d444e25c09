import NIOCore

/// What ``GuardedChildChannel`` enforces (`http.request_head_timeout_seconds` and
/// `http.idle_timeout_seconds` in config/relay.yaml and config/chat.yaml).
public struct HTTPConnectionGuards: Sendable {
    /// A new connection must send a complete request head within this time (nil: no limit).
    public var requestHeadTimeout: TimeAmount?
    /// A connection with no byte read or written for this long is closed (nil: no limit).
    public var idleTimeout: TimeAmount?
    /// Answer parse errors of the first request (400/431 + close): for pipelines that
    /// leave them to nobody (hummingbird-websocket's upgrade pipeline).
    public var answersFirstRequestParseErrors: Bool

    public init(requestHeadTimeout: TimeAmount?, idleTimeout: TimeAmount?, answersFirstRequestParseErrors: Bool = false) {
        self.requestHeadTimeout = requestHeadTimeout
        self.idleTimeout = idleTimeout
        self.answersFirstRequestParseErrors = answersFirstRequestParseErrors
    }

    /// From config seconds, where 0 (or less) means no limit.
    public init(requestHeadTimeoutSeconds: Double, idleTimeoutSeconds: Double, answersFirstRequestParseErrors: Bool = false) {
        func amount(_ seconds: Double) -> TimeAmount? { seconds > 0 ? .nanoseconds(Int64(seconds * 1e9)) : nil }
        self.init(requestHeadTimeout: amount(requestHeadTimeoutSeconds), idleTimeout: amount(idleTimeoutSeconds),
                  answersFirstRequestParseErrors: answersFirstRequestParseErrors)
    }
}
