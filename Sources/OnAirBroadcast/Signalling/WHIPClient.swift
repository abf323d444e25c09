import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP half of a WHIP client (RFC 9725 §4): POST the offer, DELETE the session, and the
/// OPTIONS pre-flight `broadcast doctor` runs. Redirects (307/308) are followed with method and
/// body kept (§4.5). Every failure becomes a ``BroadcastError`` naming what to fix.
public final class WHIPClient: Sendable {
    private let http: HTTPClient
    private let requestTimeout: TimeAmount

    public init(requestTimeout: TimeAmount = .seconds(10)) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        // A refused connection is retried by the pool until this runs out: keep it short, so "relay
        // down" is reported in seconds (one SYN retransmission still fits).
        configuration.timeout = .init(connect: .seconds(3), read: requestTimeout)
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.requestTimeout = requestTimeout
    }

    public func shutdown() async {
        try? await http.shutdown()
    }

    /// RFC 9725 §4.2: POST application/sdp, expect 201 with a Location and an SDP answer.
    public func publish(offer: String, to url: String, token: String?) async throws(BroadcastError) -> WHIPSession {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/sdp")
        request.headers.add(name: "Accept", value: "application/sdp")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(string: offer))
        let (response, body) = try await execute(request, url: url)
        switch response.status.code {
        case 201:
            break
        case 401, 403:
            throw BroadcastError(.unauthorized, "the relay refused the token for \(url) (HTTP \(response.status.code)): "
                                 + "pass the room's publish token with --token or ONAIR_BROADCAST_TOKEN" + Self.reason(body))
        case 409:
            let retry = response.headers.first(name: "Retry-After").map { " (retry after \($0) s)" } ?? ""
            throw BroadcastError(.roomBusy, "the room is busy: another broadcast is live on \(url)\(retry)" + Self.reason(body))
        case 404:
            throw BroadcastError(.rejected, "no WHIP endpoint at \(url) (HTTP 404): check --relay and --room" + Self.reason(body))
        default:
            throw BroadcastError(.rejected, "the WHIP endpoint answered HTTP \(response.status.code) \(response.status.reasonPhrase)"
                                 + Self.reason(body))
        }
        guard let location = response.headers.first(name: "Location") else {
            throw BroadcastError(.rejected, "the WHIP endpoint's 201 has no Location header (RFC 9725 §4.2 requires one)")
        }
        let base = response.url ?? URL(string: url)
        guard let resolved = URL(string: location, relativeTo: base)?.absoluteString else {
            throw BroadcastError(.rejected, "the WHIP endpoint's Location '\(location)' is not a URL")
        }
        return WHIPSession(location: resolved, etag: response.headers.first(name: "ETag"), answerSDP: body,
                           iceServers: LinkHeader.iceServers(response.headers["Link"]))
    }

    /// RFC 9725 §4.6: the ICE servers (TURN credentials included) the endpoint names in the
    /// `Link` headers of its OPTIONS answer, asked before the offer so that a relay candidate
    /// can be in it. Empty when the endpoint names none or does not answer OPTIONS with 2xx.
    public func iceServers(url: String, token: String?) async -> [ICEServer] {
        var request = HTTPClientRequest(url: url)
        request.method = .OPTIONS
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        guard let (response, _) = try? await execute(request, url: url), (200..<300).contains(response.status.code) else { return [] }
        return LinkHeader.iceServers(response.headers["Link"])
    }

    /// RFC 9725 §4.3: DELETE ends the session at once. Returns the status (nil: unreachable).
    @discardableResult
    public func delete(location: String, token: String?) async -> Int? {
        var request = HTTPClientRequest(url: location)
        request.method = .DELETE
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        guard let (response, _) = try? await execute(request, url: location) else { return nil }
        return Int(response.status.code)
    }

    /// OPTIONS on the endpoint (RFC 9725 §4.2: CORS pre-flight and `Accept-Post`).
    public func options(url: String) async throws(BroadcastError) -> (status: Int, headers: HTTPHeaders) {
        var request = HTTPClientRequest(url: url)
        request.method = .OPTIONS
        request.headers.add(name: "Origin", value: "http://onair-doctor.invalid")
        request.headers.add(name: "Access-Control-Request-Method", value: "POST")
        let (response, _) = try await execute(request, url: url)
        return (Int(response.status.code), response.headers)
    }

    private func execute(_ request: HTTPClientRequest, url: String) async throws(BroadcastError)
        -> (HTTPClientResponse, String) {
        do {
            let response = try await http.execute(request, timeout: requestTimeout)
            let body = try await response.body.collect(upTo: 1 << 20)
            return (response, String(buffer: body))
        } catch {
            let text = String(describing: error)
            if ["invalidURL", "emptyHost", "emptyScheme", "unsupportedScheme"].contains(where: text.contains) {
                throw BroadcastError(.usage, "'\(url)' is not a valid WHIP URL: use http(s)://host:port or a full WHIP URL")
            }
            throw BroadcastError(.relayUnreachable, "cannot reach the relay at \(url): \(Self.describe(error)) "
                                 + "(is `relay serve` running? check --relay)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectTimeout") { return "connection timed out" }
        if text.contains("Connection refused") || text.contains("connectionRefused") || text.contains("ECONNREFUSED") {
            return "connection refused"
        }
        if text.contains("readTimeout") || text.contains("deadlineExceeded") { return "no answer in time" }
        return text
    }

    /// The relay puts the reason in the body of 4xx responses: show it, one line, bounded.
    private static func reason(_ body: String) -> String {
        let line = body.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? "" : ": " + String(line.prefix(300))
    }
}
