import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OnAirAuth
@testable import OnAirChat
import Testing
import OnAirTokenFormat

/// Access tokens (issue 28) in the chat: the join frame's `token` and REST's Bearer. With a
/// token the member is its `sub` and `name`, never the frame's name; refusals are error frames
/// with a code and a one-word reason, then the socket closes.
@Suite("Chat access tokens")
struct ChatJWTTests {
    static let secret = "chat-tests-secret-of-32-bytes-at-least"

    static func token(room: String? = "42", grants: [Grant] = [.chat], sub: String = "ada", name: String? = "Ada",
                      ttl: Double = 600, now: Double = Date().timeIntervalSince1970) async throws -> String {
        try await TokenMinter(secret: secret).mint(TokenMinter.claims(identity: sub, name: name, room: room, grants: grants, ttl: ttl, now: now))
    }

    func withLiveChat(_ kind: StoreKind, required: Bool = false, _ configure: (inout ChatConfig) -> Void = { _ in },
                      _ body: @escaping @Sendable (Int, any TestClientProtocol) async throws -> Void) async throws {
        let config = ChatFixtures.config {
            $0.auth.jwt.secret = Self.secret
            $0.auth.jwt.required = required
            configure(&$0)
        }
        let verifier = try await TokenVerifier.loading(config.auth.jwt)
        try await ChatStoreFactory.with(kind) { stores in
            let (store, cluster) = try await stores.openNode()
            let app = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: store, cluster: cluster, verifier: verifier)
            try await app.test(.live) { client in try await body(try #require(client.port), client) }
        }
    }

    func join(_ port: Int, _ frame: [String: Any], room: String = "42") -> WSTestClient {
        let client = WSTestClient(port: port, path: "/rooms/\(room)/ws")
        client.send(["type": "join"].merging(frame) { _, new in new })
        return client
    }

    @Test("the member is the token's sub and name; the frame's name is ignored", arguments: StoreKind.allCases)
    func identityFromTheToken(_ kind: StoreKind) async throws {
        try await withLiveChat(kind) { port, _ in
            let ada = join(port, ["name": "Mallory", "token": try await Self.token()])
            let joined = try await ada.next("joined")
            let you = try #require(joined["you"] as? [String: Any])
            #expect(you["name"] as? String == "Ada" && you["user"] as? String == "ada")
            // No name in the frame: fine with a token; no name claim: the sub is shown.
            let bob = join(port, ["token": try await Self.token(sub: "bob", name: nil)])
            let bobJoined = try await bob.next("joined")
            #expect((bobJoined["you"] as? [String: Any])?["name"] as? String == "bob")
            let members = (bobJoined["presence"] as? [String: Any])?["members"] as? [[String: Any]] ?? []
            #expect(members.contains { $0["user"] as? String == "ada" && $0["name"] as? String == "Ada" })
            ada.send(["type": "send", "text": "hi", "name": "Bob"])
            let message = try #require(try await bob.next("message")["message"] as? [String: Any])
            #expect(message["name"] as? String == "Ada" && message["user"] as? String == "ada")
            // History keeps the user id (the store's new column).
            bob.send(["type": "history", "ref": "h"])
            let history = try await bob.next("history")
            let stored = (history["messages"] as? [[String: Any]])?.last
            #expect(stored?["user"] as? String == "ada")
            ada.close()
            bob.close()
        }
    }

    @Test("refusals: an error frame naming why, then the socket closes", arguments: StoreKind.allCases)
    func refusals(_ kind: StoreKind) async throws {
        try await withLiveChat(kind, required: true) { port, _ in
            let cases: [(String, String, String)] = [
                (try await Self.token(room: "4"), "forbidden", "wrong_room"),
                (try await Self.token(grants: [.view]), "forbidden", "missing_grant"),
                (try await Self.token(ttl: 60, now: 1_000), "invalid_token", "expired"),
                (String(try await Self.token().dropLast(3)) + "AAA", "invalid_token", "bad_signature"),
                ("static-token", "unauthorized", "token_required"),
            ]
            for (token, code, reason) in cases {
                let client = join(port, ["name": "ada", "token": token])
                let error = try await client.next("error")
                #expect(error["code"] as? String == code && error["reason"] as? String == reason, "\(error)")
                #expect(await client.waitClosed())
            }
            let tokenless = join(port, ["name": "ada"])
            #expect(try await tokenless.next("error")["code"] as? String == "unauthorized")
        }
    }

    @Test("REST: a JWT posts as its user; reading needs one when required")
    func rest() async throws {
        try await withLiveChat(.sqlite, required: true) { _, client in
            let token = try await Self.token()
            var headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(token)"]
            let posted = try await client.execute(uri: "/rooms/42/messages", method: .post, headers: headers,
                                                  body: ByteBuffer(string: #"{"text":"hello","name":"Mallory"}"#))
            #expect(posted.status == .created)
            let message = ChatFixtures.json(posted.body)["message"] as? [String: Any]
            #expect(message?["name"] as? String == "Ada" && message?["user"] as? String == "ada" && message?["kind"] as? String == "user")
            #expect(try await client.execute(uri: "/rooms/42", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/rooms/42", method: .get, headers: headers).status == .ok)
            headers[.authorization] = "Bearer \(try await Self.token(room: "4"))"
            let refused = try await client.execute(uri: "/rooms/42/messages", method: .post, headers: headers,
                                                   body: ByteBuffer(string: #"{"text":"x"}"#))
            #expect(refused.status == .forbidden)
            #expect(refused.headers[.wwwAuthenticate]?.contains(#"error="insufficient_scope""#) == true)
        }
    }

    @Test("config: auth.jwt and ONAIR_CHAT_JWT_* overrides")
    func config() throws {
        let config = try ChatConfigLoader.load(path: nil, environment: ["ONAIR_CHAT_JWT_SECRET": Self.secret, "ONAIR_CHAT_JWT_REQUIRED": "1",
                                                                         "ONAIR_CHAT_JWT_JWKS_URL": "http://127.0.0.1:9/jwks"])
        #expect(config.auth.jwt.secret == Self.secret && config.auth.jwt.required && config.auth.jwt.jwksURL == "http://127.0.0.1:9/jwks")
        #expect(throws: ChatConfigLoader.Problem.self) { try ChatConfigLoader.load(path: nil, environment: ["ONAIR_CHAT_JWT_SECRET": "short"]) }
    }
}
