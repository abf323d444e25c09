import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import OnAirRelay

/// `GET /api/streams`, `/metrics`, `/healthz` and the viewer page.
@Suite("API, metrics and viewer page")
struct APIEndpointTests {
    func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(response.text.utf8))
    }

    @Test("GET /api/streams: a JSON array of rooms, sorted, with the documented fields")
    func streams() async throws {
        try await withRelay { _, client in
            let empty = try await client.get("/api/streams")
            #expect(empty.status == .ok && empty.headers[.contentType] == "application/json")
            #expect((try json(empty) as? [Any])?.isEmpty == true)

            let publisher = try await client.publish(room: "b-room")
            _ = try await client.publish(room: "a-room", offer: TestOffers.publisher(video: false))
            _ = try await client.watch(room: "b-room")
            let response = try await client.get("/api/streams")
            #expect(response.status == .ok)
            let rooms = try #require(try json(response) as? [[String: Any]])
            #expect(rooms.map { $0["room"] as? String } == ["a-room", "b-room"])
            let room = try #require(rooms.last)
            for key in ["room", "live", "publisher", "viewers", "peak_viewers", "codecs", "packets_in", "bytes_in", "packets_out",
                        "bytes_out", "keyframes", "keyframe_requests", "retransmissions", "packets_lost", "loss_fraction"] {
                #expect(room[key] != nil, "missing \(key)")
            }
            // Signalled but never connected over ICE/DTLS: not live, no viewer counted yet.
            #expect(room["live"] as? Bool == false)
            #expect(room["viewers"] as? Int == 0 && room["peak_viewers"] as? Int == 1)
            #expect(room["packets_in"] as? Int == 0)
            let session = try #require(room["publisher"] as? [String: Any])
            // Shortened: the full id is the key to the session resource, which this open
            // listing must not hand out.
            let shown = try #require(session["session_id"] as? String)
            let id = try #require(publisher.location.split(separator: "/").last)
            #expect(shown.count == 8 && id.count > 8 && id.hasPrefix(shown))
            #expect(session["state"] as? String == "connecting")
            let codecs = try #require(room["codecs"] as? [String])
            #expect(codecs.contains { $0.hasPrefix("video/H264/90000") && $0.contains("profile-level-id=42e01f") }, "\(codecs)")
            #expect(codecs.contains("audio/opus/48000/2"), "\(codecs)")
            let audioOnly = try #require(rooms.first?["codecs"] as? [String])
            #expect(audioOnly == ["audio/opus/48000/2"])
        }
    }

    @Test("GET /api/streams/{room}: the one room, 404 for others, 400 for bad ids")
    func oneStream() async throws {
        try await withRelay { _, client in
            _ = try await client.publish()
            let response = try await client.get("/api/streams/42")
            #expect(response.status == .ok)
            let room = try #require(try json(response) as? [String: Any])
            #expect(room["room"] as? String == "42")
            let missing = try await client.get("/api/streams/43")
            #expect(missing.status == .notFound && missing.text.contains("43"))
            #expect(try await client.get("/api/streams/bad!id").status == .badRequest)
        }
    }

    @Test("percent-encoded room ids are decoded before the room-id rule (RFC 3986 §2.1)")
    func percentEncodedRoom() async throws {
        try await withRelay { _, client in
            let created = try await client.publish(room: "%34%32")
            #expect(created.location.hasPrefix("/whip/42/"), "\(created.location)")
            let response = try await client.get("/api/streams/%34%32")
            #expect(response.status == .ok)
            #expect((try json(response) as? [String: Any])?["room"] as? String == "42")
            #expect(try await client.get("/rooms/%34%32").status == .ok)
            #expect(try await client.delete(created.location.replacingOccurrences(of: "/whip/42/", with: "/whip/%34%32/")).status == .ok)
            for room in ["%2F", "a%2Fb", "%2E%2E", "%2e", "%zz", "%00", "%FF", "%34%32%21"] {
                let refused = try await client.get("/api/streams/\(room)")
                #expect(refused.status == .badRequest, "\(room): \(refused.status)")
                #expect(refused.text.hasPrefix("room id must be"), "\(room): \(refused.text)")
            }
        }
    }

    @Test("/metrics: Prometheus text with the relay's onair_ series")
    func metrics() async throws {
        try await withRelay { _, client in
            _ = try await client.publish()
            let response = try await client.get("/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            let lines = response.text.split(separator: "\n").map(String.init)
            let samples = lines.filter { $0.hasPrefix("onair_") }
            #expect(samples.count >= 10, "\(response.text)")
            #expect(lines.contains { $0.hasPrefix("# TYPE onair_") })
            #expect(samples.contains { $0.hasPrefix("onair_sessions ") && Double($0.dropFirst("onair_sessions ".count)) == 1 }, "\(samples)")
            #expect(samples.contains { $0.hasPrefix("onair_stream_live{room=\"42\"}") })
            for name in ["onair_udp_datagrams_sent_total", "onair_udp_datagrams_unroutable_total", "onair_srtp_failures_total",
                         "onair_media_loop_load", "onair_media_fanout_load",
                         "onair_stream_packets_in_total"] {
                #expect(samples.contains { $0.hasPrefix(name) }, "no \(name)")
            }
            // Every sample line is `name{labels} value` with a number.
            for sample in samples {
                let value = sample.split(separator: " ").last.map(String.init) ?? ""
                #expect(Double(value) != nil, "\(sample)")
            }
            // A second scrape after the room ended still renders.
            let ended = try await client.get("/metrics")
            #expect(ended.status == .ok)
        }
    }

    @Test("/metrics forgets a room once it is gone, as /api/streams does")
    func metricsForgetEndedRooms() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let during = try await client.get("/metrics").text
            #expect(during.contains("room=\"42\""))
            #expect(try await client.delete(created.location).status == .ok)
            #expect(try await client.get("/api/streams/42").status == .notFound)
            let after = try await client.get("/metrics").text
            let stale = after.split(separator: "\n").filter { $0.contains("room=\"42\"") }
            // A stale onair_stream_live{room="42"} keeps its last value: 1 forever for a room
            // that was live at the previous scrape.
            #expect(stale.isEmpty, "series of an ended room: \(stale)")
            #expect(after.contains("onair_sessions "))
        }
    }

    @Test("/rooms/{room}: the viewer page as HTML")
    func viewerPage() async throws {
        try await withRelay { _, client in
            let response = try await client.get("/rooms/42")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(response.text.lowercased().hasPrefix("<!doctype html>"))
            #expect(!response.text.contains("missing from the build"), "the page comes from the module's resources")
            #expect(response.text.contains("whep"), "the page talks WHEP")
            #expect(try await client.get("/rooms/no%20pe").status == .badRequest)
            let root = try await client.get("/")
            #expect(root.status == .found && root.headers[.location] != nil)
        }
    }

    @Test("/healthz: ok")
    func health() async throws {
        try await withRelay { _, client in
            let response = try await client.get("/healthz")
            #expect(response.status == .ok && response.text == "ok\n")
        }
    }

    @Test("unknown paths and methods: 404 or 405, never 5xx", arguments: [
        ("/whip", HTTPRequest.Method.post), ("/whip/42/a/b", .post), ("/nothing", .get), ("/whip/42", .get),
        ("/whip/42", .put), ("/api/streams/42", .delete), ("/whep/42/x", .get),
    ])
    func unknownRoutes(uri: String, method: HTTPRequest.Method) async throws {
        try await withRelay { _, client in
            let response = try await client.execute(uri: uri, method: method, headers: [.contentType: "application/sdp"],
                                                    body: .init(string: TestOffers.publisher()))
            #expect(response.status == .notFound || response.status == .methodNotAllowed, "\(method) \(uri): \(response.status)")
        }
    }
}
