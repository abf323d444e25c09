import Foundation
import HTTPTypes
import Hummingbird
import OnAirHLS

/// An LL-HLS request, parsed from its path and query: what ``HLSFastPathHandler`` asks the
/// LL-HLS service.
enum HLSRoute: Sendable, Equatable {
    /// `/hls/{room}/index.m3u8`
    case multivariant(room: String)
    /// `/hls/{room}/{stream}/{file}` with the blocking-reload parameters (RFC 8216bis §6.2.5).
    case resource(room: String, stream: String, file: String, request: PlaylistRequest)

    /// The paths answered here, for the router's `Allow` answers (``RouteMethods``): GET, and
    /// HEAD with it.
    static let routes: [(path: RouterPath, method: HTTPRequest.Method)] = [
        ("/hls/:room/index.m3u8", .get), ("/hls/:room/:stream/:file", .get),
    ]

    /// The route of `path` (without query), nil when the path is not one of ours; throws
    /// the 400 a malformed room or query deserves.
    static func parse(path: Substring, query: Substring?) throws(RelayHTTPError) -> HLSRoute? {
        guard path.hasPrefix("/hls/") else { return nil }
        let segments = path.dropFirst(5).split(separator: "/", omittingEmptySubsequences: false)
        switch segments.count {
        case 2 where segments[1] == "index.m3u8":
            return .multivariant(room: try validatedRoom(segments[0]))
        case 3 where !segments[1].isEmpty && !segments[2].isEmpty:
            let room = try validatedRoom(segments[0])
            var msn: String?, part: String?, skip: String?
            for pair in (query ?? "").split(separator: "&") {
                let (name, value) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
                let decoded = String(value).removingPercentEncoding ?? String(value)
                switch name {
                case "_HLS_msn": msn = decoded
                case "_HLS_part": part = decoded
                case "_HLS_skip": skip = decoded
                default: break
                }
            }
            let request = PlaylistRequest(msn: msn, part: part, skip: skip)
            if let problem = request.malformed { throw RelayHTTPError(.badRequest, problem) }
            return .resource(room: room, stream: String(segments[1]), file: String(segments[2]), request: request)
        default:
            return nil
        }
    }

    private static func validatedRoom(_ raw: Substring) throws(RelayHTTPError) -> String {
        do {
            return try RoomID.validated(String(raw))
        } catch let error as RelayHTTPError {
            throw error
        } catch {
            throw RelayHTTPError(.badRequest, "\(error)")
        }
    }

    /// Asks the LL-HLS service (on its loop).
    func reply(from hls: HLSService) -> HLSReply {
        switch self {
        case .multivariant(let room): return hls.multivariant(room: room)
        case .resource(let room, let stream, let file, let request):
            return hls.resource(room: room, stream: stream, name: file, request: request)
        }
    }
}
