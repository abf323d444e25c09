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
        // Most of these requests are answered before they get here (HLSFastPathHandler);
        // these routes serve the rest (e.g. while another response on the connection is
        // outstanding) the same way.
        for path in ["/hls/:room/index.m3u8", "/hls/:room/:stream/:file"] {
            router.get(RouterPath(path)) { request, _ in
                guard let route = try HLSRoute.parse(path: request.uri.path[...], query: request.uri.query.map { $0[...] }) else {
                    throw RelayHTTPError(.notFound, "no such resource")
                }
                return try await respond { route.reply(from: $0) }
            }
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
