import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import OnAirChat
import Testing

/// The chat's HTTP contract beyond its routes: `405` with `Allow` for a method a path does
/// not take (RFC 9110 §15.5.6), `HEAD` as `GET` without content (§9.3.2), `OPTIONS` by path,
/// percent-encoded room ids (RFC 3986 §2.1) and JSON errors everywhere its routes answer.
@Suite("Chat HTTP contract")
struct ChatHTTPContractTests {
    func withApp(_ setup: TestingSetup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void)
        async throws {
        let config = ChatFixtures.config { $0.auth.botToken = "bot-token" }
        try await ChatStoreFactory.with(.sqlite) { stores in
            let (store, cluster) = try await stores.openNode()
            let app = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: store, cluster: cluster)
            try await app.test(setup, body)
        }
    }

    static let bot: HTTPFields = [.authorization: "Bearer bot-token", .contentType: "application/json"]

    @Test("a method the path does not take: 405, Allow, and the chat's JSON error", arguments: [
        (HTTPRequest.Method.put, "/rooms/42", "GET, HEAD, OPTIONS"),
        (.delete, "/rooms/42/messages", "GET, HEAD, POST, OPTIONS"),
        (.post, "/rooms/42/ws", "GET, HEAD, OPTIONS"),
        (.get, "/hooks/relay", "POST, OPTIONS"),
        (.head, "/hooks/relay", "POST, OPTIONS"),
        (.trace, "/healthz", "GET, HEAD, OPTIONS"),
        (.delete, "/api/openapi.yaml", "GET, HEAD, OPTIONS"),
    ] as [(HTTPRequest.Method, String, String)])
    func methodNotAllowed(method: HTTPRequest.Method, uri: String, allow: String) async throws {
        try await withApp { client in
            let response = try await client.execute(uri: uri, method: method)
            #expect(response.status == .methodNotAllowed, "\(response.status)")
            #expect(response.headers[.allow] == allow)
            if method != .head {
                #expect(response.headers[.contentType] == "application/json")
                let reason = ChatFixtures.json(response.body)["error"] as? String
                #expect(reason?.contains(allow) == true, "\(String(buffer: response.body))")
            }
        }
    }

    @Test("unknown paths stay 404, OPTIONS included", arguments: [
        (HTTPRequest.Method.options, "/nope"), (.put, "/nope"), (.get, "/rooms"), (.options, "/rooms/42/messages/1"),
    ] as [(HTTPRequest.Method, String)])
    func unknownPath(method: HTTPRequest.Method, uri: String) async throws {
        try await withApp { client in
            let response = try await client.execute(uri: uri, method: method)
            #expect(response.status == .notFound)
            #expect(response.headers[.allow] == nil)
        }
    }

    @Test("OPTIONS and CORS preflights list the path's own methods")
    func optionsByPath() async throws {
        try await withApp { client in
            let hook = try await client.execute(uri: "/hooks/relay", method: .options)
            #expect(hook.status == .noContent && hook.headers[.allow] == "POST, OPTIONS")
            let preflight = try await client.execute(uri: "/rooms/42/messages", method: .options, headers: [
                .origin: "http://127.0.0.1:8080", .accessControlRequestMethod: "POST",
            ])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.allow] == "GET, HEAD, POST, OPTIONS")
            #expect(preflight.headers[.accessControlAllowMethods] == "GET, HEAD, POST, OPTIONS")
            let room = try await client.execute(uri: "/rooms/42", method: .options, headers: [
                .origin: "http://127.0.0.1:8080", .accessControlRequestMethod: "GET",
            ])
            #expect(room.headers[.accessControlAllowMethods] == "GET, HEAD, OPTIONS")
        }
    }

    @Test("HEAD on a GET route: GET's status and header fields, no content (over a real connection)")
    func headIsGetWithoutContent() async throws {
        try await withApp(.live) { client in
            _ = try await client.execute(uri: "/rooms/42/messages", method: .post, headers: Self.bot,
                                         body: ByteBuffer(string: #"{"text":"hello"}"#))
            for uri in ["/healthz", "/rooms/42", "/rooms/42/messages", "/rooms/nope", "/api/openapi.yaml"] {
                let get = try await client.execute(uri: uri, method: .get)
                let head = try await client.execute(uri: uri, method: .head)
                #expect(head.status == get.status, "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(uri)")
            }
        }
    }

    @Test("percent-encoded room ids are decoded before the room-id rule (RFC 3986 §2.1)")
    func percentEncodedRoom() async throws {
        try await withApp { client in
            let posted = try await client.execute(uri: "/rooms/%34%32/messages", method: .post, headers: Self.bot,
                                                  body: ByteBuffer(string: #"{"text":"to 42"}"#))
            #expect(posted.status == .created, "\(String(buffer: posted.body))")
            let room = try await client.execute(uri: "/rooms/42", method: .get)
            #expect(room.status == .ok && ChatFixtures.json(room.body)["last_message_id"] as? Int == 1)
            let encoded = try await client.execute(uri: "/rooms/%34%32", method: .get)
            #expect(encoded.status == .ok && ChatFixtures.json(encoded.body)["room"] as? String == "42")
            for refused in ["/rooms/%2F", "/rooms/a%2Fb", "/rooms/%2E%2E", "/rooms/%2e", "/rooms/%zz", "/rooms/%00", "/rooms/%FF"] {
                let response = try await client.execute(uri: refused, method: .get)
                #expect(response.status == .badRequest, "\(refused): \(response.status)")
                #expect(ChatFixtures.json(response.body)["error"] != nil, "\(refused)")
            }
        }
    }

    @Test("a bot message body over limits.max_frame_bytes: 413 with the chat's JSON error")
    func botBodyTooLarge() async throws {
        try await withApp { client in
            let text = String(repeating: "x", count: ChatConfig().limits.maxFrameBytes + 1)
            let response = try await client.execute(uri: "/rooms/42/messages", method: .post, headers: Self.bot,
                                                    body: ByteBuffer(string: #"{"text":"\#(text)"}"#))
            #expect(response.status == .contentTooLarge)
            #expect(response.headers[.contentType] == "application/json")
            let reason = try #require(ChatFixtures.json(response.body)["error"] as? String)
            #expect(reason.contains("\(ChatConfig().limits.maxFrameBytes)"), "\(reason)")
        }
    }
}
