import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OnAirAuth
import OnAirHTTP

/// All HTTP routes of the relay.
enum RelayRouter {
    /// `verifier`: the access-token verifier when `auth.jwt` sets a key (``RelayAccess``).
    static func build(workers: MediaWorkers, config: RelayConfig, logger: Logger,
                      webhooks: WebhookService? = nil, verifier: TokenVerifier? = nil) -> Router<BasicRequestContext> {
        let access = RelayAccess(config: config, verifier: verifier)
        // RFC 9110 §9.3.2: every GET route answers HEAD too (GET's header fields, no content).
        let router = Router(options: .autoGenerateHeadEndpoints)
        let links = ICEServerLinks(config: config)
        router.add(middleware: CORSPolicyMiddleware(policy: corsPolicy(config)))
        APIDocument(bundle: .module).register(on: router)
        SignallingController(workers: workers, config: config, access: access, iceServers: links, logger: logger,
                             directory: webhooks?.roomDirectory).register(on: router)
        // LL-HLS is answered ahead of the router, in the HTTP pipeline (HLSFastPathHandler).
        // Webhooks (issue 5): kick, subscriptions, delivery log, events.
        StreamAdminController(workers: workers, config: config, access: access, logger: logger).register(on: router)
        if let webhooks {
            WebhookAdminController(store: webhooks.store, dispatcher: webhooks.dispatcher, config: config, access: access, logger: logger)
                .register(on: router)
        }

        let metrics = RelayMetrics()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]

        let directory = webhooks?.roomDirectory
        router.get("/api/streams") { _, _ -> Response in
            let streams = try await workers.snapshots()
            guard let directory else { return json(try encoder.encode(streams)) }
            // Relays on one database: every live room, with the relay that serves it (the
            // database away: this relay's own only).
            let here = Set(streams.map(\.room))
            let elsewhere = ((try? await directory.directory()) ?? []).filter { !here.contains($0.room) }
            let listed = streams.map { ListedStream(snapshot: $0, room: $0.room, relay: directory.relayID) }
                + elsewhere.map { ListedStream(snapshot: nil, room: $0.room, relay: $0.relay) }
            return json(try encoder.encode(listed))
        }
        router.get("/api/streams/:room") { _, context -> Response in
            let room = try RoomID.validated(context.parameters.require("room"))
            guard let stream = try await workers.snapshot(room: room) else {
                throw RelayHTTPError(.notFound, "room \(room) has no stream and no viewers")
            }
            return json(try encoder.encode(stream))
        }
        router.get("/metrics") { _, _ -> Response in
            let streams = try await workers.snapshots()
            let counters = try await workers.counters()
            let hls = try await workers.hls.perform { $0.counters() }
            let text = metrics.render(streams: streams, workers: counters, hls: hls)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }
        router.get("/healthz") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        let page = ViewerPage.html
        router.get("/rooms/:room") { _, context -> Response in
            _ = try RoomID.validated(context.parameters.require("room"))
            return Response(status: .ok,
                            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                            body: .init(byteBuffer: ByteBuffer(bytes: page)))
        }
        router.get("/") { _, _ -> Response in
            Response(status: .found, headers: [.location: "/rooms/42"])
        }
        // Last, so that it sees only what no route took: OPTIONS, and 405 for a method a known
        // path does not take (RFC 9110 §15.5.6), by the routes above and LL-HLS's.
        router.add(middleware: AllowedMethodsMiddleware(
            routes: RouteMethods(router, alsoServed: HLSRoute.routes), optionsHeaders: optionsHeaders(links: links),
            refusal: { RelayHTTPError($0, $1, headers: $2) }))
        return router
    }

    /// What OPTIONS adds on the WHIP/WHEP resources: the endpoints' `Accept-Post` (RFC 9725
    /// §4.2) and ICE servers (§4.6, TURN credentials minted for the path's room), the sessions'
    /// `Accept-Patch` (RFC 5789 §3.1).
    static func optionsHeaders(links: ICEServerLinks) -> [(path: RouterPath, headers: @Sendable (Request) -> HTTPFields)] {
        let endpoint: @Sendable (Request) -> HTTPFields = { request in
            var fields: HTTPFields = [HTTPField.Name("Accept-Post")!: "application/sdp"]
            // The route is /whip/:room or /whep/:room: the room is the second segment.
            let segments = request.uri.path.split(separator: "/")
            let room = segments.count == 2 ? try? RoomID.validated(String(segments[1])) : nil
            for link in links.links(room: room) { fields.append(HTTPField(name: HTTPField.Name("Link")!, value: link)) }
            return fields
        }
        let session: @Sendable (Request) -> HTTPFields = { _ in [HTTPField.Name("Accept-Patch")!: "application/trickle-ice-sdpfrag"] }
        return [("/whip/:room", endpoint), ("/whep/:room", endpoint),
                ("/whip/:room/:session", session), ("/whep/:room/:session", session)]
    }

    /// Who may call the relay from a page of another origin (`http.cors_origins`): WHIP/WHEP
    /// clients must read `Location`, `ETag` and `Link` (RFC 9725 §4.2, §4.6), the HLS player its
    /// playlists. The HLS fast path answers by the same policy.
    static func corsPolicy(_ config: RelayConfig) -> CORSPolicy {
        CORSPolicy(allowedOrigins: config.http.corsOrigins, requestHeaders: [.authorization, .contentType, .ifMatch],
                   exposedHeaders: ["Location", "ETag", "Link", "Accept-Post", "Accept-Patch", "Retry-After", "WWW-Authenticate"])
    }

    private static func json(_ data: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The viewer page, read once from the module's resources.
enum ViewerPage {
    static let html: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "room", withExtension: "html", subdirectory: "Web"),
              let data = try? Data(contentsOf: url) else {
            return Array("<!doctype html><p>viewer page missing from the build</p>".utf8)
        }
        return Array(data)
    }()
}
