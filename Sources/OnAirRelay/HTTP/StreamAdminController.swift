import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `POST /api/streams/{room}/kick` (admin token): ends the live stream of a room on purpose.
/// The publisher is closed and `stream.ended` goes out with reason `kicked`; 404 when nothing
/// is live there.
struct StreamAdminController: Sendable {
    let workers: MediaWorkers
    let config: RelayConfig
    /// The admin API takes `auth.admin_token` or a JWT with the `admin` grant.
    let access: RelayAccess
    let logger: Logger

    func register(on router: Router<BasicRequestContext>) {
        router.post("/api/streams/:room/kick") { request, context -> Response in
            try access.require(.admin, request)
            let room = try RoomID.validated(context.parameters.require("room"))
            let kicked = try await workers.engine(room: room).perform { $0.kick(room: room) }
            guard kicked else { throw RelayHTTPError(.notFound, "room \(room) has no live stream") }
            logger.notice("stream kicked by the admin API", metadata: ["room": "\(room)"])
            let body = try JSONEncoder().encode(["room": room, "result": "kicked"])
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
