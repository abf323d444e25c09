import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import OnAirChat
import Testing

/// Two chat nodes on one PostgreSQL database, in-process, over real WebSockets.
@Suite("Chat on two nodes (PostgreSQL)")
struct ChatClusterTests {
    /// Runs two live nodes on one fresh database; `body` gets their ports and HTTP clients.
    func withTwoNodes(_ config: ChatConfig = ChatFixtures.config(),
                      _ body: @escaping @Sendable ([Int], [any TestClientProtocol]) async throws -> Void) async throws {
        try await ChatStoreFactory.with(.postgres) { stores in
            let (storeA, linkA) = try await stores.openNode()
            let (storeB, linkB) = try await stores.openNode()
            let nodeA = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: storeA, cluster: linkA)
            let nodeB = ChatServer(config: config, logger: ChatFixtures.logger).makeApplication(store: storeB, cluster: linkB)
            try await nodeA.test(.live) { a in
                try await nodeB.test(.live) { b in
                    try await body([try #require(a.port), try #require(b.port)], [a, b])
                }
            }
        }
    }

    func joined(_ port: Int, _ name: String, after: Int64? = nil) async throws -> (WSTestClient, [String: Any]) {
        let client = WSTestClient(port: port, path: "/rooms/42/ws")
        var join: [String: Any] = ["type": "join", "name": name]
        if let after { join["after"] = after }
        client.send(join)
        return (client, try await client.next("joined"))
    }

    /// Presence frames until one says `count` (within `seconds`).
    func presence(_ client: WSTestClient, reaches count: Int, seconds: Int = 5) async throws {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            let frame = try await client.next("presence", timeout: .seconds(seconds))
            if frame["count"] as? Int == count { return }
        }
        Issue.record("presence never reached \(count)")
    }

    @Test("messages cross nodes in id order; presence and who are room-wide; an end on one node closes the room on both")
    func crossNode() async throws {
        let config = ChatFixtures.config { $0.limits.messageBurst = 100; $0.limits.messagesPerSecond = 100; $0.limits.frameBurst = 100 }
        try await withTwoNodes(config) { ports, http in
            let (ada, _) = try await joined(ports[0], "ada")
            let (bob, _) = try await joined(ports[1], "bob")
            try await presence(ada, reaches: 2)
            try await presence(bob, reaches: 2)
            bob.send(["type": "who", "ref": "w"])
            let members = try await bob.next("members")
            #expect(members["count"] as? Int == 2)
            let ids = (members["members"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(Set(ids).count == 2, "member ids unique across nodes: \(ids)")

            // Alternating senders on the two nodes: both clients see 1...20 in order.
            for i in 0..<20 { (i % 2 == 0 ? ada : bob).send(["type": "send", "text": "m\(i)", "ref": "r\(i)"]) }
            for client in [ada, bob] {
                var seen: [Int] = []
                while seen.count < 20 {
                    guard let frame = try? await client.next("message") else {
                        Issue.record("after \(seen)")
                        return
                    }
                    seen.append(((frame["message"] as? [String: Any])?["id"] as? Int) ?? -1)
                }
                #expect(seen == Array(1...20))
            }

            // A stream end delivered to node A only.
            for (type, sequence) in [("stream.started", Int64(1)), ("stream.ended", Int64(2))] {
                let (headers, body) = try ChatFixtures.signed(ChatFixtures.event(type, generation: 1, sequence: sequence,
                                                                                 reason: type == "stream.ended" ? "kicked" : nil))
                let response = try await http[0].execute(uri: "/hooks/relay", method: .post, headers: headers, body: body)
                #expect(response.status == .ok)
            }
            let closed = try await bob.next("room.closed", timeout: .seconds(2))
            #expect(closed["reason"] as? String == "kicked")
            bob.send(["type": "send", "text": "too late", "ref": "late"])
            let refused = try await bob.next("error")
            #expect(refused["code"] as? String == "room_closed")

            // Resume on the other node: exactly what was missed.
            let (carol, resumed) = try await joined(ports[1], "carol", after: 15)
            let missed = (resumed["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } ?? []
            #expect(missed == [16, 17, 18, 19, 20, 21, 22], "\(missed)")
            #expect(resumed["state"] as? String == "closed")
            for client in [ada, bob, carol] { client.close() }
        }
    }
}
