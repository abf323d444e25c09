import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import OnAirAuth
@testable import OnAirChat
import OnAirTokenFormat
import Testing

/// Moderation (issue 28) over real WebSockets and REST, on SQLite and PostgreSQL: each action
/// is one frame and one REST call, checked (the `moderate` grant for the room), stored where it
/// must persist, and told to the room as an event frame.
@Suite("Chat moderation")
struct ChatModerationTests {
    static func token(_ sub: String, moderate: Bool = false, room: String = "42") async throws -> String {
        try await ChatJWTTests.token(room: room, grants: moderate ? [.chat, .moderate] : [.chat], sub: sub, name: sub.capitalized)
    }

    static func config(_ change: (inout ChatConfig) -> Void = { _ in }) -> ChatConfig {
        ChatFixtures.config {
            $0.auth.jwt.secret = ChatJWTTests.secret
            $0.limits.messageBurst = 100
            $0.limits.messagesPerSecond = 100
            $0.limits.userMessageBurst = 100
            $0.limits.userMessagesPerSecond = 100
            change(&$0)
        }
    }

    /// A live chat on `stores` (a new node or a restart on the same data).
    static func live(_ stores: ChatStoreFactory, _ config: ChatConfig = config(),
                     _ body: @escaping @Sendable (Int, any TestClientProtocol) async throws -> Void) async throws {
        let verifier = try await TokenVerifier.loading(config.auth.jwt)
        let (store, cluster) = try await stores.openNode()
        let app = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: store, cluster: cluster, verifier: verifier)
        try await app.test(.live) { client in try await body(try #require(client.port), client) }
    }

    /// Joins with `token` (or `name` alone) and returns the client and its first answer.
    static func join(_ port: Int, token: String? = nil, name: String? = nil, after: Int64? = nil) async throws -> (WSTestClient, [String: Any]) {
        let client = WSTestClient(port: port, path: "/rooms/42/ws")
        var frame: [String: Any] = ["type": "join"]
        if let token { frame["token"] = token }
        if let name { frame["name"] = name }
        if let after { frame["after"] = after }
        client.send(frame)
        return (client, try await client.next())
    }

    static func say(_ client: WSTestClient, _ text: String) async throws -> [String: Any] {
        let ref = UUID().uuidString
        client.send(["type": "send", "text": text, "ref": ref])
        while true {
            let frame = try await client.next()
            if frame["ref"] as? String == ref { return frame }
        }
    }

    static func moderate(_ client: WSTestClient, _ frame: [String: Any]) async throws -> [String: Any] {
        let ref = UUID().uuidString
        client.send(frame.merging(["ref": ref]) { _, new in new })
        while true {
            let answer = try await client.next()
            if answer["ref"] as? String == ref { return answer }
        }
    }

    static func rest(_ client: any TestClientProtocol, _ token: String?, _ body: String, room: String = "42") async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/rooms/\(room)/moderation", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    @Test("delete: everyone gets message.deleted; history, REST and resume show the tombstone", arguments: StoreKind.allCases)
    func delete(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            try await Self.live(stores) { port, http in
                let (mod, _) = try await Self.join(port, token: try await Self.token("mod", moderate: true))
                let (ada, _) = try await Self.join(port, token: try await Self.token("ada"))
                let (bob, _) = try await Self.join(port, token: try await Self.token("bob"))
                #expect(try await Self.say(ada, "secret")["id"] as? Int == 1)
                #expect(try await Self.say(bob, "hi")["id"] as? Int == 2)
                let done = try await Self.moderate(mod, ["type": "delete", "id": 1])
                #expect(done["type"] as? String == "done", "\(done)")
                let deleted = try await bob.next("message.deleted")
                #expect(deleted["message_id"] as? Int == 1 && deleted["user"] as? String == "ada" && deleted["by"] as? String == "mod")
                bob.send(["type": "history", "ref": "h"])
                let page = try #require(try await bob.next("history")["messages"] as? [[String: Any]])
                #expect(page.count == 2)
                #expect(page[0]["text"] as? String == "" && page[0]["deleted"] as? Bool == true && page[0]["deleted_by"] as? String == "mod")
                #expect(page[0]["deleted_at"] is String && page[0]["user"] as? String == "ada")
                #expect(page[1]["text"] as? String == "hi" && page[1]["deleted"] == nil)
                let listed = ChatFixtures.json(try await http.execute(uri: "/rooms/42/messages", method: .get).body)
                #expect(((listed["messages"] as? [[String: Any]])?.first?["deleted"] as? Bool) == true)
                let (late, joined) = try await Self.join(port, name: "carol", after: 0)
                let resumed = joined["messages"] as? [[String: Any]] ?? []
                #expect(resumed.first?["deleted"] as? Bool == true && resumed.first?["text"] as? String == "")
                // An unknown message: not_found; over REST 404.
                #expect(try await Self.moderate(mod, ["type": "delete", "id": 99])["code"] as? String == "not_found")
                let missing = try await Self.rest(http, try await Self.token("mod", moderate: true), #"{"type":"delete","id":99}"#)
                #expect(missing.status == .notFound)
                for client in [mod, ada, bob, late] { client.close() }
            }
        }
    }

    @Test("refusals: not a moderator (frame and REST), wrong room, no token, bad body", arguments: StoreKind.allCases)
    func refusals(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            try await Self.live(stores) { port, http in
                let (ada, _) = try await Self.join(port, token: try await Self.token("ada"))
                let refused = try await Self.moderate(ada, ["type": "ban", "user": "bob"])
                #expect(refused["code"] as? String == "not_moderator", "\(refused)")
                let (open, _) = try await Self.join(port, name: "eve")
                #expect(try await Self.moderate(open, ["type": "kick", "user": "ada"])["code"] as? String == "not_moderator")
                // The connection stays usable.
                ada.send(["type": "ping", "ref": "p"])
                #expect(try await ada.next("pong")["ref"] as? String == "p")
                #expect(try await Self.rest(http, nil, #"{"type":"kick","user":"ada"}"#).status == .unauthorized)
                let chatOnly = try await Self.rest(http, try await Self.token("ada"), #"{"type":"kick","user":"bob"}"#)
                #expect(chatOnly.status == .forbidden)
                #expect(chatOnly.headers[.wwwAuthenticate]?.contains(#"scope="moderate""#) == true)
                let wrongRoom = try await Self.rest(http, try await Self.token("mod", moderate: true, room: "4"), #"{"type":"kick","user":"bob"}"#)
                #expect(wrongRoom.status == .forbidden)
                let mod = try await Self.token("mod", moderate: true)
                #expect(try await Self.rest(http, mod, #"{"type":"send","text":"x"}"#).status == .badRequest)
                #expect(try await Self.rest(http, mod, #"{"type":"mute","user":"bob"}"#).status == .badRequest)
                let kicked = try await Self.rest(http, mod, #"{"type":"kick","user":"bob"}"#)
                #expect(kicked.status == .ok)
                let event = ChatFixtures.json(kicked.body)["event"] as? [String: Any]
                #expect(event?["type"] as? String == "member.kicked" && event?["user"] as? String == "bob" && event?["by"] as? String == "mod")
                ada.close()
                open.close()
            }
        }
    }

    @Test("mute, slow mode, kick, ban and unban over WebSocket", arguments: StoreKind.allCases)
    func actions(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            try await Self.live(stores) { port, http in
                let modToken = try await Self.token("mod", moderate: true)
                let (mod, _) = try await Self.join(port, token: modToken)
                let (ada, _) = try await Self.join(port, token: try await Self.token("ada"))
                let bobToken = try await Self.token("bob")
                let (bob, _) = try await Self.join(port, token: bobToken)

                // Mute: Ada's posts refused until it ends (or is lifted); REST posts too.
                #expect(try await Self.moderate(mod, ["type": "mute", "user": "ada", "seconds": 60])["type"] as? String == "done")
                let muted = try await ada.next("member.muted")
                #expect(muted["user"] as? String == "ada" && muted["seconds"] as? Int == 60 && muted["until_ts"] is Int)
                let refused = try await Self.say(ada, "let me speak")
                #expect(refused["code"] as? String == "muted" && (refused["retry_after_ms"] as? Int ?? 0) > 50_000, "\(refused)")
                let post = try await http.execute(uri: "/rooms/42/messages", method: .post,
                                                  headers: [.authorization: "Bearer \(try await Self.token("ada"))"],
                                                  body: ByteBuffer(string: #"{"text":"via REST"}"#))
                #expect(post.status == .forbidden)
                _ = try await Self.moderate(mod, ["type": "mute", "user": "ada", "seconds": 0])
                #expect(try await ada.next("member.unmuted")["user"] as? String == "ada")
                #expect(try await Self.say(ada, "thanks")["type"] as? String == "ack")

                // Slow mode: one message per user per interval; moderators exempt; 0 turns it off.
                _ = try await Self.moderate(mod, ["type": "slow_mode", "seconds": 30])
                #expect(try await bob.next("room.slow_mode")["seconds"] as? Int == 30)
                #expect(try await Self.say(bob, "one")["type"] as? String == "ack")
                let slowed = try await Self.say(bob, "two")
                #expect(slowed["code"] as? String == "slow_mode" && (slowed["retry_after_ms"] as? Int ?? 0) > 20_000, "\(slowed)")
                #expect(try await Self.say(mod, "m1")["type"] as? String == "ack")
                #expect(try await Self.say(mod, "m2")["type"] as? String == "ack")
                #expect(ChatFixtures.json(try await http.execute(uri: "/rooms/42", method: .get).body)["slow_mode_seconds"] as? Int == 30)
                _ = try await Self.moderate(mod, ["type": "slow_mode", "seconds": 0])
                #expect(try await Self.say(bob, "two again")["type"] as? String == "ack")

                // Kick: Bob's socket gets the event and an error saying so, then closes; he may come back.
                _ = try await Self.moderate(mod, ["type": "kick", "user": "bob"])
                #expect(try await bob.next("member.kicked")["user"] as? String == "bob")
                #expect(try await bob.next("error")["code"] as? String == "kicked")
                #expect(await bob.waitClosed())
                let (bobAgain, rejoined) = try await Self.join(port, token: bobToken)
                #expect(rejoined["type"] as? String == "joined")

                // Ban: closed now, joins refused; unban lets him back.
                _ = try await Self.moderate(mod, ["type": "ban", "user": "bob"])
                #expect(try await bobAgain.next("error")["code"] as? String == "banned")
                #expect(await bobAgain.waitClosed())
                #expect(try await ada.next("member.banned")["user"] as? String == "bob")
                let (again, refusedJoin) = try await Self.join(port, token: bobToken)
                #expect(refusedJoin["code"] as? String == "banned", "\(refusedJoin)")
                #expect(await again.waitClosed())
                _ = try await Self.moderate(mod, ["type": "unban", "user": "bob"])
                let (back, backJoined) = try await Self.join(port, token: bobToken)
                #expect(backJoined["type"] as? String == "joined")
                for client in [mod, ada, back] { client.close() }
            }
        }
    }

    @Test("a ban and a mute hold across a restart", arguments: StoreKind.allCases)
    func persists(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let mod = try await Self.token("mod", moderate: true)
            try await Self.live(stores) { _, http in
                for action in [#"{"type":"ban","user":"bob"}"#, #"{"type":"mute","user":"ada","seconds":600}"#,
                               #"{"type":"slow_mode","seconds":5}"#] {
                    let response = try await Self.rest(http, mod, action)
                    #expect(response.status == .ok, "\(action)")
                }
            }
            try await Self.live(stores) { port, _ in
                let (bob, refused) = try await Self.join(port, token: try await Self.token("bob"))
                #expect(refused["code"] as? String == "banned")
                let (ada, joined) = try await Self.join(port, token: try await Self.token("ada"))
                #expect(joined["slow_mode_seconds"] as? Int == 5)
                #expect(try await Self.say(ada, "still muted?")["code"] as? String == "muted")
                bob.close()
                ada.close()
            }
        }
    }

    @Test("per-user rate: two connections of one user share one bucket", arguments: StoreKind.allCases)
    func perUserRate(_ kind: StoreKind) async throws {
        let config = Self.config { $0.limits.userMessageBurst = 3; $0.limits.userMessagesPerSecond = 0.01 }
        try await ChatStoreFactory.with(kind) { stores in
            try await Self.live(stores, config) { port, _ in
                let token = try await Self.token("ada")
                let (tab1, _) = try await Self.join(port, token: token)
                let (tab2, _) = try await Self.join(port, token: token)
                let (bob, _) = try await Self.join(port, token: try await Self.token("bob"))
                var answers: [String] = []
                for i in 0..<4 {
                    let frame = try await Self.say(i % 2 == 0 ? tab1 : tab2, "m\(i)")
                    answers.append(frame["type"] as? String == "ack" ? "ack" : frame["code"] as? String ?? "?")
                }
                #expect(answers == ["ack", "ack", "ack", "rate_limited"], "\(answers)")
                // Another user has a bucket of their own.
                #expect(try await Self.say(bob, "mine")["type"] as? String == "ack")
                for client in [tab1, tab2, bob] { client.close() }
            }
        }
    }

    @Test("two nodes: a ban closes the user on the other node and refuses the reconnect there; deletions reach both")
    func acrossNodes() async throws {
        try await ChatStoreFactory.with(.postgres) { stores in
            try await Self.live(stores) { portA, _ in
                try await Self.live(stores) { portB, httpB in
                    let (mod, _) = try await Self.join(portA, token: try await Self.token("mod", moderate: true))
                    let bobToken = try await Self.token("bob")
                    let (bob, _) = try await Self.join(portB, token: bobToken)
                    let (ada, _) = try await Self.join(portB, token: try await Self.token("ada"))
                    #expect(try await Self.say(bob, "spam")["type"] as? String == "ack")
                    _ = try await Self.moderate(mod, ["type": "delete", "id": 1])
                    #expect(try await ada.next("message.deleted")["message_id"] as? Int == 1)
                    let listed = ChatFixtures.json(try await httpB.execute(uri: "/rooms/42/messages", method: .get).body)
                    #expect(((listed["messages"] as? [[String: Any]])?.first?["deleted_by"] as? String) == "mod")
                    _ = try await Self.moderate(mod, ["type": "mute", "user": "ada", "seconds": 60])
                    _ = try await ada.next("member.muted")
                    #expect(try await Self.say(ada, "hello?")["code"] as? String == "muted")
                    _ = try await Self.moderate(mod, ["type": "ban", "user": "bob"])
                    #expect(try await bob.next("error")["code"] as? String == "banned")
                    #expect(await bob.waitClosed())
                    let (again, refused) = try await Self.join(portB, token: bobToken)
                    #expect(refused["code"] as? String == "banned")
                    for client in [mod, ada, again] { client.close() }
                }
            }
        }
    }
}
