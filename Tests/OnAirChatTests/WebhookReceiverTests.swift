import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import OnAirChat
import OnAirWebhooks
import Testing

@Suite("Webhook receiver (POST /hooks/relay)")
struct WebhookReceiverTests {
    /// Runs `body` against a chat app on an in-memory store; the store is handed over to
    /// check that refused deliveries changed nothing.
    func withApp(_ kind: StoreKind, _ config: ChatConfig = ChatFixtures.config(),
                 _ body: @escaping @Sendable (any TestClientProtocol, any ChatStore) async throws -> Void) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let (store, cluster) = try await stores.openNode()
            let app = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: store, cluster: cluster)
            try await app.test(.router) { client in try await body(client, store) }
        }
    }

    func post(_ client: any TestClientProtocol, _ request: (HTTPFields, ByteBuffer)) async throws -> TestResponse {
        try await client.execute(uri: "/hooks/relay", method: .post, headers: request.0, body: request.1)
    }

    @Test("a valid stream.ended closes the room and writes the system message", arguments: StoreKind.allCases)
    func valid(_ kind: StoreKind) async throws {
        try await withApp(kind) { client, store in
            let started = try await post(client, ChatFixtures.signed(ChatFixtures.event("stream.started", generation: 1, sequence: 1)))
            #expect(started.status == .ok)
            #expect(ChatFixtures.json(started.body)["status"] as? String == "applied")
            let ended = try await post(client, ChatFixtures.signed(ChatFixtures.event("stream.ended", generation: 1, sequence: 2,
                                                                                    reason: "publisher_deleted")))
            #expect(ended.status == .ok)
            #expect(ChatFixtures.json(ended.body)["state"] as? String == "closed")
            let room = try #require(try await store.room("42"))
            #expect(room.state == .closed && room.closedReason == "publisher_deleted")
            let texts = try await store.page(room: "42", .latest(limit: 10)).messages.map(\.text)
            #expect(texts == ["stream started", "stream ended (publisher_deleted)"])
        }
    }

    @Test("forged signature: 401, nothing stored (not even the room)", arguments: StoreKind.allCases)
    func forged(_ kind: StoreKind) async throws {
        try await withApp(kind) { client, store in
            let event = ChatFixtures.event("stream.ended", generation: 1, sequence: 1, reason: "kicked")
            let response = try await post(client, ChatFixtures.signed(event, secret: ChatFixtures.otherSecret))
            #expect(response.status == .unauthorized)
            #expect(String(buffer: response.body).contains("no signature matches"))
            // The body altered after signing: also refused.
            var (headers, body) = try ChatFixtures.signed(event)
            body = ByteBuffer(string: String(buffer: body).replacingOccurrences(of: "kicked", with: "hacked"))
            #expect(try await post(client, (headers, body)).status == .unauthorized)
            headers[HTTPField.Name("webhook-signature")!] = "v2,abc"
            #expect(try await post(client, (headers, body)).status == .unauthorized)
            #expect(try await store.room("42") == nil)
        }
    }

    @Test("stale or future timestamps (over 5 minutes): 401, nothing stored", arguments: StoreKind.allCases)
    func stale(_ kind: StoreKind) async throws {
        try await withApp(kind) { client, store in
            // The clock is read per request and the offsets keep a margin: on a loaded machine
            // seconds pass between building a request and the server checking it.
            for offset in [-330, 330, -3600] as [Int64] {
                let now = Int64(Date().timeIntervalSince1970)
                let event = ChatFixtures.event("stream.ended", generation: 1, sequence: 1, reason: "kicked")
                let response = try await post(client, ChatFixtures.signed(event, timestamp: now + offset))
                #expect(response.status == .unauthorized, "offset \(offset)")
                #expect(String(buffer: response.body).contains("5 minutes"))
            }
            #expect(try await store.room("42") == nil)
            let fine = try await post(client, ChatFixtures.signed(ChatFixtures.event("stream.started", generation: 1, sequence: 1),
                                                                  timestamp: Int64(Date().timeIntervalSince1970) - 250))
            #expect(fine.status == .ok)
        }
    }

    @Test("a replayed webhook-id is a 2xx duplicate and changes nothing", arguments: StoreKind.allCases)
    func replay(_ kind: StoreKind) async throws {
        try await withApp(kind) { client, store in
            let ended = try ChatFixtures.signed(ChatFixtures.event("stream.ended", generation: 1, sequence: 1, reason: "kicked"),
                                                id: "msg_same")
            #expect(try await post(client, ended).status == .ok)
            let before = try await store.room("42")
            // Same id, even with a different (validly signed) body: the id decides.
            let reopen = try ChatFixtures.signed(ChatFixtures.event("stream.started", generation: 2, sequence: 2), id: "msg_same")
            for request in [ended, reopen] {
                let response = try await post(client, request)
                #expect(response.status == .ok)
                #expect(ChatFixtures.json(response.body)["status"] as? String == "duplicate")
            }
            #expect(try await store.room("42") == before)
            #expect(try await store.page(room: "42", .latest(limit: 10)).messages.count == 1)
        }
    }

    @Test("an older generation's stream.ended is ignored: the new session's chat stays open", arguments: StoreKind.allCases)
    func olderGeneration(_ kind: StoreKind) async throws {
        try await withApp(kind) { client, store in
            _ = try await post(client, ChatFixtures.signed(ChatFixtures.event("stream.started", generation: 7, sequence: 20)))
            let before = try await store.room("42")
            let late = try await post(client, ChatFixtures.signed(ChatFixtures.event("stream.ended", generation: 6, sequence: 19,
                                                                                   reason: "publisher_timeout")))
            #expect(late.status == .ok)
            let answer = ChatFixtures.json(late.body)
            #expect(answer["status"] as? String == "ignored")
            #expect((answer["reason"] as? String)?.contains("older generation") == true)
            #expect(try await store.room("42") == before)
            #expect(try await store.room("42")?.state == .open)
            #expect(try await store.page(room: "42", .latest(limit: 10)).messages.count == 1)
        }
    }

    @Test("malformed requests: 400 with the reason; no secret: 503; too big: 413", arguments: StoreKind.allCases)
    func malformed(_ kind: StoreKind) async throws {
        try await withApp(kind) { client, store in
            let missing = try await client.execute(uri: "/hooks/relay", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: "{}"))
            #expect(missing.status == .badRequest)
            #expect(String(buffer: missing.body).contains("webhook-id"))
            // Signed, but not a stream event.
            let id = "msg_x", ts = Int64(Date().timeIntervalSince1970), body = Array("{\"hello\":1}".utf8)
            let headers: HTTPFields = [
                HTTPField.Name("webhook-id")!: id, HTTPField.Name("webhook-timestamp")!: String(ts),
                HTTPField.Name("webhook-signature")!: WebhookSignature.sign(id: id, timestamp: ts, body: body, secrets: [ChatFixtures.secret]),
            ]
            #expect(try await post(client, (headers, ByteBuffer(bytes: body))).status == .badRequest)
            let badRoom = try ChatFixtures.signed(ChatFixtures.event("stream.started", room: "../etc", generation: 1, sequence: 1))
            #expect(try await post(client, badRoom).status == .badRequest)
            let huge = ByteBuffer(repeating: UInt8(ascii: "x"), count: 70_000)
            #expect(try await client.execute(uri: "/hooks/relay", method: .post, headers: headers, body: huge).status == .contentTooLarge)
            #expect(try await store.room("42") == nil)
        }
        try await withApp(kind, ChatFixtures.config { $0.webhooks.secrets = [] }) { client, _ in
            let request = try ChatFixtures.signed(ChatFixtures.event("stream.started", generation: 1, sequence: 1))
            #expect(try await post(client, request).status == .serviceUnavailable)
        }
    }

    @Test("secret rotation: a delivery signed with any configured secret is accepted", arguments: StoreKind.allCases)
    func rotation(_ kind: StoreKind) async throws {
        let config = ChatFixtures.config { $0.webhooks.secrets = [ChatFixtures.otherSecret.encoded, ChatFixtures.secret.encoded] }
        try await withApp(kind, config) { client, _ in
            let request = try ChatFixtures.signed(ChatFixtures.event("stream.started", generation: 1, sequence: 1))
            #expect(try await post(client, request).status == .ok)
        }
    }
}
