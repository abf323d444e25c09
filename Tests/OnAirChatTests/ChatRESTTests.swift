import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import OnAirChat
import Testing

@Suite("Chat REST and CORS")
struct ChatRESTTests {
    func withApp(_ kind: StoreKind = .sqlite, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let config = ChatFixtures.config { $0.auth.botToken = "bot-token" }
        try await ChatStoreFactory.with(kind) { stores in
            let (store, cluster) = try await stores.openNode()
            let app = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: store, cluster: cluster)
            try await app.test(.router, body)
        }
    }

    func botPost(_ client: any TestClientProtocol, _ text: String, token: String? = "bot-token") async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/rooms/42/messages", method: .post, headers: headers,
                                        body: ByteBuffer(string: #"{"text":"\#(text)","name":"scorebot"}"#))
    }

    @Test("bots post with the Bearer token; messages page by after/before", arguments: StoreKind.allCases)
    func botsAndPages(_ kind: StoreKind) async throws {
        try await withApp(kind) { client in
            #expect(try await client.execute(uri: "/rooms/42", method: .get).status == .notFound)
            #expect(try await botPost(client, "x", token: nil).status == .unauthorized)
            #expect(try await botPost(client, "x", token: "wrong").status == .unauthorized)
            for i in 1...5 {
                let response = try await botPost(client, "goal \(i)")
                #expect(response.status == .created)
                let message = ChatFixtures.json(response.body)["message"] as? [String: Any]
                #expect(message?["id"] as? Int == i)
                #expect(message?["kind"] as? String == "bot")
                #expect(message?["name"] as? String == "scorebot")
            }
            let room = ChatFixtures.json(try await client.execute(uri: "/rooms/42", method: .get).body)
            #expect(room["state"] as? String == "open")
            #expect(room["last_message_id"] as? Int == 5)
            #expect(room["presence"] as? Int == 0)
            let after = ChatFixtures.json(try await client.execute(uri: "/rooms/42/messages?after=2&limit=2", method: .get).body)
            #expect((after["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [3, 4])
            #expect(after["more"] as? Bool == true)
            let before = ChatFixtures.json(try await client.execute(uri: "/rooms/42/messages?before=3", method: .get).body)
            #expect((before["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [1, 2])
            #expect(try await client.execute(uri: "/rooms/42/messages?after=1&before=3", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/rooms/42/messages?limit=abc", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/rooms/nope/messages", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/rooms/bad%20id", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test("CORS: preflight answered, Access-Control-Allow-Origin on answers and errors")
    func cors() async throws {
        try await withApp { client in
            let preflight = try await client.execute(uri: "/rooms/42/messages", method: .options, headers: [
                .origin: "http://127.0.0.1:8080", .accessControlRequestMethod: "POST",
                .accessControlRequestHeaders: "authorization, content-type",
            ])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "*")
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
            let error = try await client.execute(uri: "/rooms/nope", method: .get, headers: [.origin: "http://127.0.0.1:8080"])
            #expect(error.status == .notFound)
            #expect(error.headers[.accessControlAllowOrigin] == "*")
            let health = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: "http://x.example"])
            #expect(health.headers[.accessControlAllowOrigin] == "*")
        }
    }
}
