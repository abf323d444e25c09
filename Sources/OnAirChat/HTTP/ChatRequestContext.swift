import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every chat route. Keeps the NIO channel so that a WebSocket
/// connection can write frames straight onto it (``ChatOutlet``).
public struct ChatRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<ChatRequestContext>
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
