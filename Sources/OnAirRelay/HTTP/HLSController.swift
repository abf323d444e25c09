import HTTPTypes
import Hummingbird
import NIOCore
import OnAirHLS

/// LL-HLS over HTTP (RFC 8216bis): `/hls/{room}/index.m3u8` (multivariant) and the stream's
/// resources under `/hls/{room}/{stream}/`: `media.m3u8` with blocking reload
/// (`_HLS_msn`, `_HLS_part`, `_HLS_skip`), `init.mp4`, segments and parts.
struct HLSController: Sendable {
    let engine: RelayEngine

    func register(on router: Router<BasicRequestContext>) {
        router.get("/hls/:room/index.m3u8") { _, context in
            let room = try RoomID.validated(context.parameters.require("room"))
            return try await respond { $0.hlsMultivariant(room: room) }
        }
        router.get("/hls/:room/:stream/:file") { request, context in
            let room = try RoomID.validated(context.parameters.require("room"))
            let stream = try context.parameters.require("stream")
            let file = try context.parameters.require("file")
            let query = request.uri.queryParameters
            let playlistRequest = PlaylistRequest(
                msn: query["_HLS_msn"].map(String.init), part: query["_HLS_part"].map(String.init),
                skip: query["_HLS_skip"].map(String.init))
            if let problem = playlistRequest.malformed { throw RelayHTTPError(.badRequest, problem) }
            return try await respond { $0.hlsResource(room: room, stream: stream, name: file, request: playlistRequest) }
        }
    }

    /// Asks the media loop; a held request waits for its part (at most three target
    /// durations, then 503 as RFC 8216bis §6.2.5.2 says) and gets its answer computed
    /// there the moment it is released.
    private func respond(_ produce: @escaping @Sendable (RelayEngine) -> HLSReply) async throws -> Response {
        var reply = try await engine.perform(produce)
        for _ in 0..<8 {
            switch reply {
            case .content(let bytes, let type, let cache):
                return Response(status: .ok, headers: [.contentType: type, .cacheControl: cache], body: .init(byteBuffer: bytes))
            case .wait(let future):
                do {
                    reply = try await future.get()
                } catch is HLSWaitTimeout {
                    throw RelayHTTPError(.serviceUnavailable, "the requested part did not appear within three target durations")
                }
            case .notFound(let reason):
                throw RelayHTTPError(.notFound, reason)
            case .badRequest(let reason):
                throw RelayHTTPError(.badRequest, reason)
            }
        }
        throw RelayHTTPError(.serviceUnavailable, "no answer after repeated waits")
    }
}
