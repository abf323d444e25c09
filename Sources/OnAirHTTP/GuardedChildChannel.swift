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
