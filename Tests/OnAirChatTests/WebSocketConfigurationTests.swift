@testable import OnAirChat
import Testing

/// The chat writes its messages as finished frames straight to the socket (RawFrameWriter):
/// an extension that transforms frames must never be negotiated behind its back.
@Suite("Chat WebSocket configuration")
struct WebSocketConfigurationTests {
    @Test("no WebSocket extension is offered back (permessage-deflate would not see the raw frames)")
    func noExtensions() {
        let configuration = ChatServer.webSocketConfiguration(ChatConfig().limits)
        #expect(configuration.extensions.isEmpty)
        #expect(configuration.maxFrameSize == ChatConfig().limits.maxFrameBytes)
    }
}
