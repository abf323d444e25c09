import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OnAirWebhooks
import Testing
@testable import OnAirRelay

/// The webhook admin API over HTTP (Hummingbird's router test client): token checks,
/// subscriptions, the delivery log, redelivery and catch-up.
@Suite("Webhooks: admin API")
struct WebhooksAdminAPITests {
    static let token = "admin-secret"
    static let auth: HTTPFields = [.authorization: "Bearer \(token)"]

    func withAPI(_ kind: OutboxKind, adminToken: String? = token,
                 _ body: @Sendable (any WebhookOutboxStore, any TestClientProtocol) async throws -> Void) async throws {
        var config = RelayConfig()
        config.auth.adminToken = adminToken
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(RetrySchedule(delays: [0], jitter: 0))
            let running = WebhookFixtures.dispatcher(store)
            let router = Router()
            WebhookAdminController(store: store, dispatcher: running.0, config: config, access: RelayAccess(config: config, verifier: nil),
                                   logger: WebhookFixtures.quietLogger)
                .register(on: router)
            try await Application(router: router).test(.router) { client in try await body(store, client) }
            await WebhookFixtures.stop(running)
        }
    }

    func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    @Test("no admin token configured: the API is off (403); wrong or missing token: 401", arguments: OutboxKind.allCases)
    func tokens(_ kind: OutboxKind) async throws {
        try await withAPI(kind, adminToken: nil) { _, client in
            try await client.execute(uri: "/api/webhooks", method: .get, headers: Self.auth) { #expect($0.status == .forbidden) }
        }
        try await withAPI(kind) { _, client in
            try await client.execute(uri: "/api/webhooks", method: .get) { response in
                #expect(response.status == .unauthorized && response.headers[.wwwAuthenticate] != nil)
            }
            try await client.execute(uri: "/api/events", method: .get, headers: [.authorization: "Bearer nope"]) {
                #expect($0.status == .unauthorized)
            }
        }
    }

    @Test("create shows the whsec_ secret once; list and get do not; delete removes", arguments: OutboxKind.allCases)
    func subscriptions(_ kind: OutboxKind) async throws {
        try await withAPI(kind) { store, client in
            let body = ByteBuffer(string: #"{"url":"http://127.0.0.1:9/hooks/relay","events":["stream.ended"],"description":"chat"}"#)
            let id = try await client.execute(uri: "/api/webhooks", method: .post, headers: Self.auth, body: body) { response in
                #expect(response.status == .created)
                let created = try json(response.body)
                let secret = try #require(created["secret"] as? String)
                #expect(secret.hasPrefix("whsec_"))
                #expect(try WebhookSecret(secret).bytes.count == 32)
                #expect(created["events"] as? [String] == ["stream.ended"] && created["source"] as? String == "api")
                #expect(response.headers[.location] == "/api/webhooks/\(created["id"] as! String)")
                return try #require(created["id"] as? String)
            }
            try await client.execute(uri: "/api/webhooks", method: .get, headers: Self.auth) { response in
                let list = try #require(try json(response.body)["webhooks"] as? [[String: Any]])
                #expect(list.count == 1 && list[0]["id"] as? String == id && list[0]["secret"] == nil)
            }
            try await client.execute(uri: "/api/webhooks/\(id)/rotate-secret", method: .post, headers: Self.auth) { response in
                let rotated = try json(response.body)
                #expect(rotated["secret"] is String && rotated["previous_secret_expires_at"] is Double)
            }
            try await client.execute(uri: "/api/webhooks/\(id)", method: .delete, headers: Self.auth) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/webhooks/\(id)", method: .get, headers: Self.auth) { #expect($0.status == .notFound) }
            #expect(try await store.subscriptions().isEmpty)
        }
    }

    @Test("bad input: unknown event type, non-http URL, not JSON", arguments: OutboxKind.allCases)
    func badInput(_ kind: OutboxKind) async throws {
        try await withAPI(kind) { _, client in
            for (body, status) in [(#"{"url":"http://x/","events":["stream.exploded"]}"#, HTTPResponse.Status.unprocessableContent),
                                   (#"{"url":"file:///etc/passwd"}"#, .unprocessableContent),
                                   ("url=http://x/", .badRequest)] {
                try await client.execute(uri: "/api/webhooks", method: .post, headers: Self.auth, body: ByteBuffer(string: body)) {
                    #expect($0.status == status, "\(body)")
                }
            }
        }
    }

    @Test("delivery log, redelivery of a delivery, catch-up by global sequence; config subscribers cannot be deleted", arguments: OutboxKind.allCases)
    func logRedeliverCatchUp(_ kind: OutboxKind) async throws {
        try await withAPI(kind) { store, client in
            let subscriber = RelayConfig.Webhooks.Subscriber(url: "http://127.0.0.1:9/x", secret: WebhookSecret.generate().encoded)
            try await store.syncConfigSubscribers([subscriber], now: 0)
            let id = WebhookStore.configSubscriptionID(url: subscriber.url)
            let started = try await store.recordStarted(WebhookFixtures.started("42", "p"))
            let ended = try #require(try await store.recordEnded(WebhookFixtures.ended("42", "p", .kicked)))

            let deliveryID = try await client.execute(uri: "/api/webhooks/\(id)/deliveries?limit=1", method: .get,
                                                      headers: Self.auth) { response in
                #expect(response.status == .ok)
                let page = try json(response.body)
                let deliveries = try #require(page["deliveries"] as? [[String: Any]])
                #expect(deliveries.count == 1 && deliveries[0]["event_id"] as? String == ended.event.id)
                #expect(page["next_before"] as? Int == deliveries[0]["id"] as? Int)
                return try #require(deliveries[0]["id"] as? Int)
            }
            try await client.execute(uri: "/api/webhooks/\(id)/deliveries/\(deliveryID)/redeliver", method: .post,
                                     headers: Self.auth) { response in
                #expect(response.status == .accepted)
                let queued = try json(response.body)
                #expect(queued["redelivery_of"] as? Int == deliveryID && queued["event_id"] as? String == ended.event.id)
            }
            try await client.execute(uri: "/api/webhooks/\(id)/deliveries/999/redeliver", method: .post, headers: Self.auth) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/api/webhooks/\(id)", method: .delete, headers: Self.auth) { #expect($0.status == .conflict) }

            // PostgreSQL shows an event once every older transaction of the cluster has ended (other tests' too).
            _ = try await OutboxStoreFactory.events(store, after: started.event.seq, limit: 10, atLeast: 1)
            try await client.execute(uri: "/api/events?after=\(started.event.seq)", method: .get, headers: Self.auth) { response in
                let page = try json(response.body)
                let events = try #require(page["events"] as? [[String: Any]])
                #expect(events.count == 1 && events[0]["id"] as? String == ended.event.id)
                let payload = try #require(events[0]["payload"] as? [String: Any])
                let data = try #require(payload["data"] as? [String: Any])
                #expect(payload["type"] as? String == "stream.ended" && data["reason"] as? String == "kicked")
                #expect(page["next_after"] as? Int == Int(ended.event.seq))
            }
            try await client.execute(uri: "/api/events?after=-1", method: .get, headers: Self.auth) { #expect($0.status == .badRequest) }
        }
    }
}
