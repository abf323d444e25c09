import HTTPTypes
import HummingbirdTesting
import Testing
@testable import OnAirRelay

/// What each path answers by method: a method it does not take is `405` with `Allow` (RFC
/// 9110 §15.5.6), `HEAD` is `GET` without content (§9.3.2), `OPTIONS` lists the path's own
/// methods (§9.3.7); unknown paths are `404` whatever the method.
@Suite("HTTP methods: 405, HEAD and OPTIONS by path")
struct HTTPMethodsTests {
    static let acceptPost = HTTPField.Name("Accept-Post")!
    static let acceptPatch = HTTPField.Name("Accept-Patch")!

    struct Case: Sendable, CustomTestStringConvertible {
        let method: HTTPRequest.Method
        let uri: String
        let allow: String
        var testDescription: String { "\(method.rawValue) \(uri)" }
    }

    static let refused: [Case] = [
        Case(method: .trace, uri: "/whip/42", allow: "POST, OPTIONS"),
        Case(method: .head, uri: "/whep/42", allow: "POST, OPTIONS"),
        Case(method: .put, uri: "/whip/42/0123456789abcdef", allow: "PATCH, DELETE, OPTIONS"),
        Case(method: .get, uri: "/whep/42/0123456789abcdef", allow: "PATCH, DELETE, OPTIONS"),
        Case(method: .patch, uri: "/whep/42/0123456789abcdef/layer", allow: "PUT, OPTIONS"),
        Case(method: .delete, uri: "/api/openapi.yaml", allow: "GET, HEAD, OPTIONS"),
        Case(method: .post, uri: "/api/streams", allow: "GET, HEAD, OPTIONS"),
        Case(method: .put, uri: "/api/streams/42", allow: "GET, HEAD, OPTIONS"),
        Case(method: .get, uri: "/api/streams/42/kick", allow: "POST, OPTIONS"),
        Case(method: .post, uri: "/healthz", allow: "GET, HEAD, OPTIONS"),
        Case(method: .delete, uri: "/", allow: "GET, HEAD, OPTIONS"),
        // LL-HLS is answered ahead of the router (HLSFastPathHandler), for GET and HEAD only.
        Case(method: .post, uri: "/hls/42/index.m3u8", allow: "GET, HEAD, OPTIONS"),
        Case(method: .delete, uri: "/hls/42/abc/media.m3u8", allow: "GET, HEAD, OPTIONS"),
    ]

    @Test("a method the path does not take: 405 with the path's Allow and a plain-text reason", arguments: refused)
    func methodNotAllowed(_ refused: Case) async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: refused.uri, method: refused.method)
            #expect(response.status == .methodNotAllowed, "\(response.status)")
            #expect(response.headers[.allow] == refused.allow)
            if refused.method != .head {
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(response.text.contains(refused.method.rawValue) && response.text.contains(refused.allow), "\(response.text)")
            }
        }
    }

    @Test("a 405 to a page of another origin carries the CORS headers, so a script can read it")
    func methodNotAllowedWithCORS() async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: "/whip/42", method: .put, headers: [.origin: "https://studio.example"])
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test("unknown paths stay 404, whatever the method", arguments: [
        (HTTPRequest.Method.get, "/nope"), (.put, "/nope"), (.options, "/nope"), (.trace, "/whip"),
        (.post, "/whip/42/abc/def"), (.options, "/api/streams/42/x/y"), (.head, "/api/nothing"),
    ] as [(HTTPRequest.Method, String)])
    func unknownPath(method: HTTPRequest.Method, uri: String) async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: uri, method: method)
            #expect(response.status == .notFound)
            #expect(response.headers[.allow] == nil)
        }
    }

    @Test("HEAD on a GET route: GET's status and header fields, without content", arguments: [
        "/healthz", "/api/openapi.yaml", "/api/streams", "/api/streams/43", "/api/streams/bad!id", "/rooms/42", "/metrics", "/",
    ])
    func headIsGetWithoutContent(uri: String) async throws {
        // Over a real connection: the HTTP/1 encoder leaves out what an error would carry.
        try await withRelay(setup: .live) { _, client in
            let get = try await client.execute(uri: uri, method: .get)
            let head = try await client.execute(uri: uri, method: .head)
            #expect(head.status == get.status)
            #expect(head.body.readableBytes == 0)
            for name in [HTTPField.Name.contentType, .cacheControl, .location] {
                #expect(head.headers[name] == get.headers[name], "\(name)")
            }
            if uri != "/metrics" {  // the sample values change between the two requests
                #expect(head.headers[.contentLength] == String(get.body.readableBytes))
            }
        }
    }

    @Test("OPTIONS lists the path's own methods, with Accept-Post / Accept-Patch where the path takes them", arguments: [
        Case(method: .options, uri: "/whip/42", allow: "POST, OPTIONS"),
        Case(method: .options, uri: "/whep/42", allow: "POST, OPTIONS"),
        Case(method: .options, uri: "/whip/42/0123456789abcdef", allow: "PATCH, DELETE, OPTIONS"),
        Case(method: .options, uri: "/whep/42/0123456789abcdef", allow: "PATCH, DELETE, OPTIONS"),
        Case(method: .options, uri: "/whep/42/0123456789abcdef/layer", allow: "PUT, OPTIONS"),
        Case(method: .options, uri: "/api/streams/42", allow: "GET, HEAD, OPTIONS"),
        Case(method: .options, uri: "/api/streams/42/kick", allow: "POST, OPTIONS"),
        Case(method: .options, uri: "/hls/42/index.m3u8", allow: "GET, HEAD, OPTIONS"),
    ])
    func optionsByPath(_ options: Case) async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: options.uri, method: .options)
            #expect(response.status == .noContent)
            #expect(response.headers[.allow] == options.allow)
            let takesPost = options.uri.hasPrefix("/whip/42") || options.uri.hasPrefix("/whep/42")
            let endpoint = takesPost && options.allow.hasPrefix("POST")
            let session = takesPost && options.allow.hasPrefix("PATCH")
            #expect(response.headers[Self.acceptPost] == (endpoint ? "application/sdp" : nil))
            #expect(response.headers[Self.acceptPatch] == (session ? "application/trickle-ice-sdpfrag" : nil))
        }
    }

    @Test("a CORS preflight allows the path's methods; one to an unknown path is 404")
    func preflightByPath() async throws {
        try await withRelay { _, client in
            let preflight: HTTPFields = [.origin: "https://studio.example", .accessControlRequestMethod: "PUT",
                                         .accessControlRequestHeaders: "content-type"]
            let layer = try await client.execute(uri: "/whep/42/0123456789abcdef/layer", method: .options, headers: preflight)
            #expect(layer.status == .noContent)
            #expect(layer.headers[.accessControlAllowOrigin] == "*")
            #expect(layer.headers[.accessControlAllowMethods] == "PUT, OPTIONS")
            #expect(layer.headers[.accessControlAllowHeaders]?.contains("Content-Type") == true)
            let unknown = try await client.execute(uri: "/nowhere", method: .options, headers: preflight)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.accessControlAllowMethods] == nil)
        }
    }
}
