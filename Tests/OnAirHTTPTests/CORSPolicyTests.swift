import HTTPTypes
import OnAirHTTP
import Testing

/// One CORS decision for the relay's router, its HLS fast path and the chat (Fetch standard,
/// "CORS protocol").
@Suite("CORS policy")
struct CORSPolicyTests {
    let listed = CORSPolicy(allowedOrigins: ["https://a.example"], requestHeaders: [.authorization, .contentType],
                            exposedHeaders: ["Location", "ETag"])
    let anyone = CORSPolicy(allowedOrigins: ["*"], requestHeaders: [])

    @Test("a listed origin gets itself back, with Vary: Origin and the headers a script may read")
    func listedOrigin() {
        let headers = listed.responseHeaders(origin: "https://a.example")
        #expect(headers[.accessControlAllowOrigin] == "https://a.example")
        #expect(headers[.vary] == "Origin")
        #expect(headers[.accessControlExposeHeaders] == "Location, ETag")
        // A preflight allows what the path asked about takes (its Allow), not a server-wide list.
        let preflight = listed.preflightHeaders(origin: "https://a.example", methods: "GET, HEAD, POST, OPTIONS")
        #expect(preflight[.accessControlAllowMethods] == "GET, HEAD, POST, OPTIONS")
        #expect(preflight[.accessControlAllowHeaders] == "Authorization, Content-Type")
        #expect(preflight[.accessControlMaxAge] == "3600")
    }

    @Test("an origin not listed, the opaque origin \"null\" and no origin get no CORS headers")
    func refused() {
        #expect(listed.responseHeaders(origin: "https://b.example").isEmpty)
        #expect(listed.preflightHeaders(origin: "https://b.example", methods: "GET").isEmpty)
        #expect(listed.responseHeaders(origin: "null").isEmpty)
        #expect(listed.responseHeaders(origin: nil).isEmpty)
        #expect(!listed.allows("https://b.example") && listed.allows("https://a.example"))
    }

    @Test("\"*\" allows any origin with a wildcard answer that needs no Vary")
    func wildcard() {
        let headers = anyone.responseHeaders(origin: "https://b.example")
        #expect(headers[.accessControlAllowOrigin] == "*")
        #expect(headers[.vary] == nil && headers[.accessControlExposeHeaders] == nil)
        #expect(anyone.allows("https://anything.example"))
    }
}
