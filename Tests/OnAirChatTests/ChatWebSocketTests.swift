import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import OnAirChat
import Testing

/// The chat over real WebSockets: a live server on a free port, clients from
/// HummingbirdWSClient (``WSTestClient``).
@Suite("Chat over WebSocket")
struct ChatWebSocketTests {
    func withLiveChat(_ kind: StoreKind, _ config: ChatConfig = ChatFixtures.config(),
                      _ body: @escaping @Sendable (Int, any TestClientProtocol, any ChatStore) async throws -> Void) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let (store, cluster) = try await stores.openNode()
            let app = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: store, cluster: cluster)
            try await app.test(.live) { client in try await body(try #require(client.port), client, store) }
        }
    }

    func joined(_ port: Int, _ name: String, after: Int64? = nil, room: String = "42") async throws -> (WSTestClient, [String: Any]) {
        let client = WSTestClient(port: port, path: "/rooms/\(room)/ws")
        var join: [String: Any] = ["type": "join", "name": name]
        if let after { join["after"] = after }
        client.send(join)
        return (client, try await client.next("joined"))
    }

    func messageID(_ frame: [String: Any]) -> Int64? {
        ((frame["message"] as? [String: Any])?["id"] as? NSNumber)?.int64Value
    }

    func relay(_ client: any TestClientProtocol, _ type: String, generation: Int64, sequence: Int64, reason: String? = nil) async throws {
        let (headers, body) = try ChatFixtures.signed(ChatFixtures.event(type, generation: generation, sequence: sequence, reason: reason))
        let response = try await client.execute(uri: "/hooks/relay", method: .post, headers: headers, body: body)
        #expect(response.status == .ok)
    }

    @Test("two clients: join, presence, send, everyone receives, sender gets an ack", arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) async throws {
        try await withLiveChat(kind) { port, _, _ in
            let (ada, adaJoined) = try await joined(port, "ada")
            #expect(adaJoined["state"] as? String == "open")
            #expect((adaJoined["presence"] as? [String: Any])?["count"] as? Int == 1)
            let (bob, bobJoined) = try await joined(port, "bob")
            #expect((bobJoined["presence"] as? [String: Any])?["count"] as? Int == 2)
            // Ada's own join is announced too (count 1); then Bob's.
            var presence = try await ada.next("presence")
            if presence["count"] as? Int == 1 { presence = try await ada.next("presence") }
            #expect(presence["count"] as? Int == 2)
            #expect((presence["joined"] as? [[String: Any]])?.first?["name"] as? String == "bob")
            ada.send(["type": "send", "text": "  hello bob  ", "ref": "r1"])
            let ack = try await ada.next("ack")
            #expect(ack["ref"] as? String == "r1")
            #expect(ack["id"] as? Int == 1)
            for client in [ada, bob] {
                let frame = try await client.next("message")
                let message = try #require(frame["message"] as? [String: Any])
                #expect(message["id"] as? Int == 1)
                #expect(message["text"] as? String == "hello bob")
                #expect(message["name"] as? String == "ada")
                #expect(message["kind"] as? String == "user")
                #expect(message["room"] as? String == "42")
            }
            bob.send(["type": "who", "ref": "w"])
            let members = try await bob.next("members")
            #expect((members["members"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["ada", "bob"])
            bob.close()
            let left = try await ada.next("presence")
            #expect(left["count"] as? Int == 1)
            #expect((left["left"] as? [[String: Any]])?.first?["name"] as? String == "bob")
            ada.close()
        }
    }

    @Test("bad JSON and bad requests get error frames; the connection stays usable", arguments: StoreKind.allCases)
    func badInput(_ kind: StoreKind) async throws {
        try await withLiveChat(kind) { port, _, _ in
            let client = WSTestClient(port: port, path: "/rooms/42/ws")
            client.send(["type": "send", "text": "too early", "ref": "e"])
            #expect(try await client.next("error")["code"] as? String == "not_joined")
            client.sendRaw("{oops")
            #expect(try await client.next("error")["code"] as? String == "bad_json")
            client.sendRaw(#"{"type":"dance"}"#)
            #expect(try await client.next("error")["code"] as? String == "bad_request")
            client.send(["type": "join", "name": "\u{7}"])
            #expect(try await client.next("error")["code"] as? String == "bad_name")
            client.send(["type": "join", "name": "ada"])
            _ = try await client.next("joined")
            client.send(["type": "join", "name": "ada"])
            #expect(try await client.next("error")["code"] as? String == "already_joined")
            client.send(["type": "send", "text": String(repeating: "x", count: 501)])
            #expect(try await client.next("error")["code"] as? String == "too_long")
            client.send(["type": "send", "text": "   "])
            #expect(try await client.next("error")["code"] as? String == "empty_message")
            client.send(["type": "ping", "ref": "p"])
            #expect(try await client.next("pong")["ref"] as? String == "p")
            client.send(["type": "send", "text": "still here"])
            #expect(try await client.next("ack")["id"] as? Int == 1)
            #expect(!client.isClosed)
            // A frame over limits.max_frame_bytes closes the socket (1009).
            client.sendRaw(String(repeating: "y", count: 20_000))
            #expect(await client.waitClosed())
        }
    }

    @Test("rate limit: the burst passes, the next send gets rate_limited with retry_after_ms", arguments: StoreKind.allCases)
    func rateLimit(_ kind: StoreKind) async throws {
        let config = ChatFixtures.config { $0.limits.messageBurst = 2; $0.limits.messagesPerSecond = 0.5 }
        try await withLiveChat(kind, config) { port, _, store in
            let (client, _) = try await joined(port, "ada")
            for i in 1...3 { client.send(["type": "send", "text": "m\(i)", "ref": "r\(i)"]) }
            #expect(try await client.next("ack")["ref"] as? String == "r1")
            #expect(try await client.next("ack")["ref"] as? String == "r2")
            let error = try await client.next("error")
            #expect(error["code"] as? String == "rate_limited")
            #expect(error["ref"] as? String == "r3")
            #expect((error["retry_after_ms"] as? Int ?? 0) > 1000)
            #expect(try await store.page(room: "42", .latest(limit: 10)).messages.count == 2)
        }
    }

    @Test("stream.ended closes the room for everyone; stream.started reopens it", arguments: StoreKind.allCases)
    func closeAndReopen(_ kind: StoreKind) async throws {
        let config = ChatFixtures.config { $0.auth.botToken = "bot" }
        try await withLiveChat(kind, config) { port, http, _ in
            try await relay(http, "stream.started", generation: 1, sequence: 1)
            let (ada, _) = try await joined(port, "ada")
            let (bob, _) = try await joined(port, "bob")
            try await relay(http, "stream.ended", generation: 1, sequence: 2, reason: "publisher_deleted")
            for client in [ada, bob] {
                let system = try #require(try await client.next("message")["message"] as? [String: Any])
                #expect(system["kind"] as? String == "system")
                #expect(system["reason"] as? String == "publisher_deleted")
                #expect(system["event"] as? String == "stream.ended")
                let closed = try await client.next("room.closed")
                #expect(closed["reason"] as? String == "publisher_deleted")
                #expect(closed["message_id"] as? Int == system["id"] as? Int)
            }
            ada.send(["type": "send", "text": "anyone?", "ref": "x"])
            let refused = try await ada.next("error")
            #expect(refused["code"] as? String == "room_closed")
            #expect(refused["ref"] as? String == "x")
            let bot = try await http.execute(uri: "/rooms/42/messages", method: .post,
                                             headers: [.authorization: "Bearer bot", .contentType: "application/json"],
                                             body: ByteBuffer(string: #"{"text":"hi"}"#))
            #expect(bot.status == .conflict)
            // A late join sees the closed state at once.
            let (late, lateJoined) = try await joined(port, "cy")
            #expect(lateJoined["state"] as? String == "closed")
            #expect(lateJoined["closed_reason"] as? String == "publisher_deleted")
            try await relay(http, "stream.started", generation: 2, sequence: 3)
            for client in [ada, bob, late] { _ = try await client.next("room.opened") }
            ada.send(["type": "send", "text": "we are back", "ref": "y"])
            #expect(try await ada.next("ack")["ref"] as? String == "y")
        }
    }

    @Test("resume: a reconnecting client gets exactly what it missed, then live messages, nothing twice", arguments: StoreKind.allCases)
    func resume(_ kind: StoreKind) async throws {
        let config = ChatFixtures.config { $0.limits.messageBurst = 500; $0.limits.messagesPerSecond = 500; $0.limits.frameBurst = 500 }
        try await withLiveChat(kind, config) { port, _, _ in
            let (ada, _) = try await joined(port, "ada")
            let (bob, _) = try await joined(port, "bob")
            for i in 1...3 { bob.send(["type": "send", "text": "m\(i)"]) }
            var lastSeen: Int64 = 0
            while lastSeen < 3 { lastSeen = try #require(messageID(try await ada.next("message"))) }
            ada.close()
            for i in 4...5 { bob.send(["type": "send", "text": "m\(i)"]) }
            while try await bob.next("ack")["id"] as? Int != 5 {}
            let (again, rejoined) = try await joined(port, "ada", after: lastSeen)
            #expect(rejoined["resumed"] as? Bool == true)
            let missed = (rejoined["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
            #expect(missed == ["m4", "m5"])
            bob.send(["type": "send", "text": "m6"])
            #expect(messageID(try await again.next("message")) == 6)
            #expect(await again.nothing("message"))
        }
    }

    @Test("resume while messages keep coming: ids are contiguous, none missing, none twice", arguments: StoreKind.allCases)
    func resumeUnderLoad(_ kind: StoreKind) async throws {
        let config = ChatFixtures.config { $0.limits.messageBurst = 1000; $0.limits.messagesPerSecond = 1000; $0.limits.frameBurst = 1000 }
        try await withLiveChat(kind, config) { port, _, _ in
            let (bob, _) = try await joined(port, "bob")
            for i in 1...10 { bob.send(["type": "send", "text": "m\(i)"]) }
            for _ in 1...10 { _ = try await bob.next("ack") }
            for i in 11...200 { bob.send(["type": "send", "text": "m\(i)"]) }
            let (ada, rejoined) = try await joined(port, "ada", after: 5)
            var ids = (rejoined["messages"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value }
            while ids.last ?? 0 < 200 { ids.append(try #require(messageID(try await ada.next("message")))) }
            #expect(ids == Array(6...200))
        }
    }

    @Test("join token: refused without it (error, then close), accepted with it", arguments: StoreKind.allCases)
    func joinToken(_ kind: StoreKind) async throws {
        try await withLiveChat(kind, ChatFixtures.config { $0.auth.joinToken = "s3cret" }) { port, _, _ in
            let stranger = WSTestClient(port: port, path: "/rooms/42/ws")
            stranger.send(["type": "join", "name": "eve", "token": "guess"])
            #expect(try await stranger.next("error")["code"] as? String == "unauthorized")
            #expect(await stranger.waitClosed())
            let friend = WSTestClient(port: port, path: "/rooms/42/ws")
            friend.send(["type": "join", "name": "ada", "token": "s3cret"])
            _ = try await friend.next("joined")
        }
    }

    @Test("history pages over the WebSocket", arguments: StoreKind.allCases)
    func history(_ kind: StoreKind) async throws {
        let config = ChatFixtures.config { $0.rooms.historyOnJoin = 3 }
        try await withLiveChat(kind, config) { port, _, store in
            for i in 1...8 { _ = try await store.append(MessageDraft(room: "42", kind: .bot, name: "b", text: "m\(i)", at: 1)) }
            let (client, join) = try await joined(port, "ada")
            #expect((join["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["m6", "m7", "m8"])
            #expect(join["more"] as? Bool == true)
            client.send(["type": "history", "before": 6, "limit": 4, "ref": "h"])
            let page = try await client.next("history")
            #expect(page["ref"] as? String == "h")
            #expect((page["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["m2", "m3", "m4", "m5"])
            #expect(page["more"] as? Bool == true)
        }
    }
}
