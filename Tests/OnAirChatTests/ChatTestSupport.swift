import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
@testable import OnAirChat
import OnAirWebhooks

/// Shared fixtures: a config for tests (free port, fast presence, one webhook secret), signed
/// webhook requests and stream events.
enum ChatFixtures {
    static let secret = WebhookSecret(bytes: Array(0..<32))
    static let otherSecret = WebhookSecret(bytes: Array(repeating: 0xA5, count: 32))

    static func config(_ change: (inout ChatConfig) -> Void = { _ in }) -> ChatConfig {
        var config = ChatConfig()
        config.http.port = 0
        config.database.path = ":memory:"
        config.webhooks.secrets = [secret.encoded]
        config.rooms.presenceIntervalMS = 0
        change(&config)
        return config
    }

    static var logger: Logger {
        var logger = Logger(label: "chat-test")
        logger.logLevel = ProcessInfo.processInfo.environment["CHAT_TEST_LOG"] != nil ? .trace : .critical
        return logger
    }

    static func event(_ type: String, room: String = "42", generation: Int64, sequence: Int64, reason: String? = nil,
                      viewers: Int? = nil) -> StreamEvent {
        StreamEvent(type: type, timestamp: "2025-05-01T12:00:00Z",
                    data: StreamEventData(eventID: "evt_\(generation)_\(sequence)", room: room, generation: generation,
                                          sequence: sequence, sessionID: "sess_\(generation)", reason: reason, viewers: viewers))
    }

    /// Headers and body of a delivery signed the Standard Webhooks way.
    static func signed(_ event: StreamEvent, id: String = "msg_\(UUID().uuidString)", timestamp: Int64? = nil,
                       secret: WebhookSecret = secret) throws -> (HTTPFields, ByteBuffer) {
        let body = try event.encoded()
        let ts = timestamp ?? Int64(Date().timeIntervalSince1970)
        let signature = WebhookSignature.sign(id: id, timestamp: ts, body: body, secrets: [secret])
        let headers: HTTPFields = [
            HTTPField.Name("webhook-id")!: id,
            HTTPField.Name("webhook-timestamp")!: String(ts),
            HTTPField.Name("webhook-signature")!: signature,
            .contentType: "application/json",
        ]
        return (headers, ByteBuffer(bytes: body))
    }

    static func json(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: buffer))) as? [String: Any] ?? [:]
    }
}
