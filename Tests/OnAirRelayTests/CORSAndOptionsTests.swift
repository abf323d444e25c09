import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import OnAirRelay

/// OPTIONS (RFC 9725 §4.1, CORS preflight) and CORS headers on every response.
@Suite("OPTIONS and CORS")
struct CORSAndOptionsTests {
    static let origin = HTTPField.Name("Origin")!
    static let acceptPost = HTTPField.Name("Accept-Post")!
    static let link = HTTPField.Name("Link")!

    @Test("OPTIONS without Origin on a WHIP/WHEP endpoint: 204 with Accept-Post: application/sdp (RFC 9725 §4.2) and no CORS headers",
          arguments: ["/whip/42", "/whep/42"])
    func optionsPlain(uri: String) async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: uri, method: .options)
            #expect(response.status == .noContent)
            #expect(response.headers[Self.acceptPost] == "application/sdp")
            #expect(response.headers[.allow] == "POST, OPTIONS")
            #expect(response.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("a CORS preflight: 204 allowing the methods and headers WHIP/WHEP clients use, endpoint and session")
    func preflight() async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: "/whip/42", method: .options, headers: [
                Self.origin: "https://studio.example", .accessControlRequestMethod: "POST",
                .accessControlRequestHeaders: "authorization, content-type",
            ])
            #expect(response.status == .noContent)
            #expect(response.headers[Self.acceptPost] == "application/sdp")
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            #expect(response.headers[.accessControlAllowMethods] == "POST, OPTIONS")
            let headers = try #require(response.headers[.accessControlAllowHeaders]).lowercased()
            for header in ["authorization", "content-type", "if-match"] { #expect(headers.contains(header), "\(headers)") }
            let exposed = try #require(response.headers[.accessControlExposeHeaders]).lowercased()
            for header in ["location", "etag", "link"] { #expect(exposed.contains(header), "\(exposed)") }
            // The session a page then trickles to and deletes (RFC 9725 §4.3, §4.2).
            let session = try await client.execute(uri: "/whip/42/someid", method: .options, headers: [
                Self.origin: "https://studio.example", .accessControlRequestMethod: "PATCH",
                .accessControlRequestHeaders: "authorization, content-type, if-match",
            ])
            #expect(session.status == .noContent)
            #expect(session.headers[.accessControlAllowMethods] == "PATCH, DELETE, OPTIONS")
            #expect(session.headers[.accessControlAllowHeaders]?.lowercased().contains("if-match") == true)
        }
    }

    @Test("responses to a page's POST carry CORS headers, errors included (so scripts read the reason)")
    func corsOnResponses() async throws {
        try await withRelay { _, client in
            let headers: HTTPFields = [Self.origin: "https://studio.example"]
            let created = try await client.post("/whip/42", TestOffers.publisher(), headers: headers)
            #expect(created.status == .created)
            #expect(created.headers[.accessControlAllowOrigin] == "*")
            #expect(created.headers[.accessControlExposeHeaders]?.contains("Location") == true)
            let refused = try await client.post("/whep/nobody", TestOffers.viewer(), headers: headers)
            #expect(refused.status == .conflict)
            #expect(refused.headers[.accessControlAllowOrigin] == "*")
            #expect(refused.headers[.accessControlExposeHeaders]?.contains("Retry-After") == true)
            #expect(refused.headers[.retryAfter] != nil)
        }
    }

    @Test("with an origin list, only listed origins are echoed")
    func originList() async throws {
        try await withRelay({ $0.http.corsOrigins = ["https://good.example"] }) { _, client in
            let good = try await client.execute(uri: "/whip/42", method: .options, headers: [Self.origin: "https://good.example"])
            #expect(good.headers[.accessControlAllowOrigin] == "https://good.example")
            #expect(good.headers[.vary]?.contains("Origin") == true)
            let evil = try await client.execute(uri: "/whip/42", method: .options, headers: [Self.origin: "https://evil.example"])
            #expect(evil.status == .noContent)
            #expect(evil.headers[.accessControlAllowOrigin] == nil)
            let post = try await client.post("/whip/42", TestOffers.publisher(), headers: [Self.origin: "https://evil.example"])
            #expect(post.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("configured ICE servers are advertised as Link rel=ice-server on OPTIONS and on 201 (RFC 9725 §4.6)")
    func iceServerLinks() async throws {
        try await withRelay({ config in
            config.iceServers = [RelayConfig.ICEServer(url: "stun:stun.example.org:3478"),
                                 RelayConfig.ICEServer(url: "turn:turn.example.org", username: "u", credential: "p")]
        }) { _, client in
            let options = try await client.execute(uri: "/whip/42", method: .options)
            let links = options.headers[values: Self.link]
            #expect(links.count == 2, "\(links)")
            #expect(links.contains { $0.hasPrefix("<stun:stun.example.org:3478>") && $0.contains("rel=\"ice-server\"") })
            #expect(links.contains { $0.hasPrefix("<turn:turn.example.org>") && $0.contains("username=\"u\"") && $0.contains("credential=\"p\"") })
            let created = try await client.publish()
            #expect(created.response.headers[values: Self.link].count == 2)
        }
    }

    @Test("TURN REST credentials (turn: section) are minted per request for the path's room, next to ice_servers, on OPTIONS and 201")
    func turnCredentialLinks() async throws {
        try await withRelay({ config in
            config.iceServers = [RelayConfig.ICEServer(url: "stun:stun.example.org:3478")]
            config.turn.urls = ["turn:turn.example.org:3478?transport=udp"]
            config.turn.secret = "onair-test-secret"
            config.turn.ttlSeconds = 600
        }) { _, client in
            /// The TURN link's username and credential; checks the password against the secret.
            func turnLink(_ links: [String], room: String) throws -> (expiry: Int, username: String) {
                #expect(links.count == 2 && links[0] == "<stun:stun.example.org:3478>; rel=\"ice-server\"", "\(links)")
                let link = try #require(links.first { $0.hasPrefix("<turn:turn.example.org:3478?transport=udp>; rel=\"ice-server\"") })
                let username = try #require(link.firstMatch(of: /username="([^"]*)"/)?.1)
                let credential = try #require(link.firstMatch(of: /credential="([^"]*)"/)?.1)
                let expiry = try #require(Int(username.prefix { $0 != ":" }))
                #expect(username == "\(expiry):\(room)")
                #expect(String(credential) == TURNCredentials(secret: "onair-test-secret", user: room, expiry: expiry).password)
                let ahead = expiry - Int(Date().timeIntervalSince1970)
                #expect((595...601).contains(ahead), "expiry \(ahead) s ahead, expected ~600")
                return (expiry, String(username))
            }
            let options = try await client.execute(uri: "/whep/42", method: .options)
            _ = try turnLink(options.headers[values: Self.link], room: "42")
            let other = try await client.execute(uri: "/whip/room-7", method: .options)
            _ = try turnLink(other.headers[values: Self.link], room: "room-7")
            let published = try await client.publish()
            _ = try turnLink(published.response.headers[values: Self.link], room: "42")
            let watched = try await client.watch()
            _ = try turnLink(watched.response.headers[values: Self.link], room: "42")
            // Session resources name no ICE servers.
            let session = try await client.execute(uri: watched.location, method: .options)
            #expect(session.headers[values: Self.link].isEmpty)
        }
    }
}
