import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import OnAirHTTP

/// The chat's HTTP routes (REST + webhook receiver) and its WebSocket route.
enum ChatRouter {
    static func http(_ services: ChatServices, webhooks: WebhookReceiver) -> Router<ChatRequestContext> {
        // RFC 9110 §9.3.2: every GET route answers HEAD too (GET's header fields, no content).
        let router = Router(context: ChatRequestContext.self, options: .autoGenerateHeadEndpoints)
        let cors = corsPolicy(services)
        router.add(middleware: CORSPolicyMiddleware(policy: cors))
        APIDocument(bundle: .module).register(on: router)
        let rest = RoomREST(services: services)

        router.get("/healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("/rooms/:room") { request, context in
            let room = try ChatRoomID.validated(context.parameters.require("room"))
            try services.access.read(request, room: room)
            return try await rest.room(room)
        }
        router.get("/rooms/:room/messages") { request, context in
            let room = try ChatRoomID.validated(context.parameters.require("room"))
            try services.access.read(request, room: room)
            return try await rest.messages(room, query: request.uri.queryParameters)
        }
        router.post("/rooms/:room/messages") { request, context in
            try await rest.post(try ChatRoomID.validated(context.parameters.require("room")), request: request)
        }
        let moderation = ModerationREST(services: services, rest: rest)
        router.post("/rooms/:room/moderation") { request, context in
            try await moderation.moderate(try ChatRoomID.validated(context.parameters.require("room")), request: request)
        }
        // Reached only when the WebSocket router did not upgrade: say why.
        router.get("/rooms/:room/ws") { request, context -> Response in
            _ = try ChatRoomID.validated(context.parameters.require("room"))
            if let origin = request.headers[.origin], !cors.allows(origin) {
                throw ChatHTTPError(.forbidden, "origin \(origin) is not in http.cors_origins")
            }
            throw ChatHTTPError(.upgradeRequired, "this is a WebSocket endpoint (Connection: Upgrade, Upgrade: websocket)",
                                headers: [.upgrade: "websocket"])
        }
        router.post("/hooks/relay") { request, _ in
            try await webhooks.receive(request)
        }
        // Last, so that it sees only what no route took: OPTIONS, and 405 for a method a known
        // path does not take (RFC 9110 §15.5.6), as JSON like the chat's other errors.
        router.add(middleware: AllowedMethodsMiddleware(routes: RouteMethods(router),
                                                        refusal: { ChatHTTPError($0, $1, headers: $2) }))
        return router
    }

    /// Who may call the chat from a page of another origin (`http.cors_origins`): the relay's
    /// viewer page, served from the relay's origin. The WebSocket upgrade checks it too.
    static func corsPolicy(_ services: ChatServices) -> CORSPolicy {
        CORSPolicy(allowedOrigins: services.config.http.corsOrigins, requestHeaders: [.authorization, .contentType])
    }

    static func webSocket(_ services: ChatServices) -> Router<ChatRequestContext> {
        let router = Router(context: ChatRequestContext.self)
        router.ws("/rooms/:room/ws") { request, context in
            guard context.parameters.get("room").flatMap(ChatRoomID.fromPath) != nil else { return .dontUpgrade }
            if let origin = request.headers[.origin], !corsPolicy(services).allows(origin) {
                return .dontUpgrade
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let roomID = context.requestContext.parameters.get("room").flatMap(ChatRoomID.fromPath) ?? ""
            let outlet = try await ChatOutlet.install(id: services.connectionIDs.next(), on: context.requestContext.channel)
            var connection = ChatConnection(roomID: roomID, services: services, outlet: outlet)
            try await connection.run(inbound: inbound, outbound: outbound)
        }
        return router
    }
}
