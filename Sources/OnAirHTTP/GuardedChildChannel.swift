import HummingbirdCore
import Logging
import NIOCore

/// A Hummingbird child channel (HTTP/1, or HTTP/1 with WebSocket upgrade) with the guards
/// Hummingbird leaves out: ``ConnectionDeadlineHandler`` at the socket end (request head and
/// idle timeouts) and, where asked, ``FirstRequestParseErrorResponder`` at the other end.
/// Everything else is the wrapped channel's.
public struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    public typealias Value = Base.Value

    public let base: Base
    public let configuration: HTTPConnectionGuards

    public init(base: Base, configuration: HTTPConnectionGuards) {
        self.base = base
        self.configuration = configuration
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let configuration = configuration
        // The base builds its pipeline synchronously; the guards go around what it built.
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            if configuration.answersFirstRequestParseErrors {
                try pipeline.addHandler(FirstRequestParseErrorResponder())
            }
            if configuration.requestHeadTimeout != nil || configuration.idleTimeout != nil {
                try pipeline.addHandler(ConnectionDeadlineHandler(requestHead: configuration.requestHeadTimeout,
                                                                  idle: configuration.idleTimeout),
                                        position: .first)
            }
            return value
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// The child channel `build` makes for each responder, with ``GuardedChildChannel``'s guards.
    public static func guarded<Base: ServerChildChannel>(
        _ configuration: HTTPConnectionGuards,
        _ build: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) -> Base
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedChildChannel(base: build(responder), configuration: configuration) }
    }
}

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
