import HTTPTypes
import Hummingbird
import OnAirHTTP
import Testing

/// The methods each path takes, resolved as Hummingbird's router resolves paths: the `Allow`
/// of 405 (RFC 9110 §15.5.6) and OPTIONS (§9.3.7) answers.
@Suite("Route methods")
struct RouteMethodsTests {
    let routes = RouteMethods([
        ("/whip/:room", .post), ("/whip/:room/:session", .patch), ("/whip/:room/:session", .delete),
        ("/api/streams", .get), ("/api/streams/:room", .get), ("/api/streams/:room/kick", .post),
        ("/api/webhooks", .post), ("/api/webhooks", .get), ("/api/webhooks/current", .put),
        ("/", .get), ("/x/:any", HTTPRequest.Method("PURGE")!),
    ])

    @Test("Allow lists a path's methods in a fixed order, HEAD with GET, OPTIONS always")
    func allow() {
        #expect(routes.route(of: "/whip/42")?.allow == "POST, OPTIONS")
        #expect(routes.route(of: "/whip/42/abc")?.allow == "PATCH, DELETE, OPTIONS")
        #expect(routes.route(of: "/api/webhooks")?.allow == "GET, HEAD, POST, OPTIONS")
        #expect(routes.route(of: "/")?.allow == "GET, HEAD, OPTIONS")
        #expect(routes.route(of: "/x/1")?.allow == "OPTIONS, PURGE")
        #expect(routes.route(of: "/whip/42")?.methods == [.post, .options])
    }

    @Test("paths split as the router splits them: empty segments left out, nothing decoded")
    func splitting() {
        #expect(routes.route(of: "/whip//42/")?.path == "/whip/:room")
        #expect(routes.route(of: "//")?.path == "/")
        #expect(routes.route(of: "/api/%73treams") == nil)
        #expect(routes.route(of: "/API/streams") == nil)
        #expect(routes.route(of: "/whip") == nil)
        #expect(routes.route(of: "/whip/42/abc/def") == nil)
    }

    @Test("a literal segment wins over a parameter where two routes match")
    func literalFirst() {
        #expect(routes.route(of: "/api/webhooks/current")?.allow == "PUT, OPTIONS")
        #expect(routes.route(of: "/api/streams/kick")?.path == "/api/streams/:room")
        #expect(routes.route(of: "/api/streams/42/kick")?.allow == "POST, OPTIONS")
    }

    @Test("read from a router: its routes, and paths answered ahead of it")
    func fromRouter() {
        let router = Router()
        router.get("/healthz") { _, _ in "ok" }
        router.post("/rooms/:room/messages") { _, _ in "posted" }
        router.get("/rooms/:room/messages") { _, _ in "page" }
        let routes = RouteMethods(router, alsoServed: [("/hls/:room/index.m3u8", .get)])
        #expect(routes.route(of: "/healthz")?.allow == "GET, HEAD, OPTIONS")
        #expect(routes.route(of: "/rooms/42/messages")?.allow == "GET, HEAD, POST, OPTIONS")
        #expect(routes.route(of: "/hls/42/index.m3u8")?.allow == "GET, HEAD, OPTIONS")
        #expect(routes.route(of: "/rooms/42") == nil)
    }
}
