import HTTPTypes
import HummingbirdTesting
import OnAirSDP
import Testing
@testable import OnAirRelay

/// `POST /whip/{room}` (RFC 9725 §4.2) against a real relay in the process.
@Suite("WHIP endpoint")
struct WHIPEndpointTests {
    @Test("a valid offer: 201, application/sdp, Location, strong ETag, an ICE-lite answer for our UDP port")
    func publishes() async throws {
        try await withRelay { relay, client in
            let created = try await client.publish()
            let response = created.response
            #expect(response.headers[.contentType] == "application/sdp")
            #expect(response.headers[values: HTTPField.Name("Accept-Patch")!].contains("application/trickle-ice-sdpfrag"))
            // Location: /whip/42/<id>, an id safe in a path.
            let parts = created.location.split(separator: "/", omittingEmptySubsequences: false)
            #expect(parts.count == 4 && parts[0] == "" && parts[1] == "whip" && parts[2] == "42", "\(created.location)")
            let id = String(parts.last ?? "")
            #expect(id.count >= 16 && id.allSatisfy { $0.isLetter || $0.isNumber }, "\(id)")
            // RFC 9110 §8.8.3: a strong entity tag is a quoted string, no W/.
            #expect(created.etag.hasPrefix("\"") && created.etag.hasSuffix("\"") && created.etag.count > 2, "\(created.etag)")
            #expect(!created.etag.hasPrefix("W/"))

            let answer = try SessionDescription.parse(created.answer)
            #expect(answer.iceLite)
            #expect(answer.bundleMids == ["0", "1"])
            #expect(answer.media.count == 2)
            for media in answer.media {
                #expect(media.port != 0, "m-line \(media.mid ?? "?") was rejected")
                #expect(answer.direction(for: media) == .recvonly)
                #expect(answer.setup(for: media) == .passive)
                let fingerprints = answer.fingerprints(for: media)
                #expect(fingerprints.contains(DTLSFingerprint(algorithm: "sha-256", bytes: relay.certificate.fingerprintSHA256)))
                let ufrag = try #require(answer.iceUfrag(for: media)), password = try #require(answer.icePassword(for: media))
                #expect(ufrag.count >= 4 && password.count >= 22)  // RFC 8839 §5.4
                #expect(ufrag != TestOffers.clientUfrag)
                #expect(media.rtcpMux)
            }
            // ICE-lite: every candidate up front, on the shared UDP port and the passive ICE-TCP
            // port, then end-of-candidates.
            let first = answer.media[0]
            #expect(first.candidates.count == 2)
            for candidate in first.candidates {
                #expect(candidate.address == "127.0.0.1" && candidate.type == .host && candidate.component == 1)
                #expect(candidate.isUDP ? Int(candidate.port) == relay.udpPort
                        : Int(candidate.port) == relay.tcpPort && candidate.tcpType == "passive")
            }
            #expect(first.endOfCandidates || answer.endOfCandidates)
            let audio = try #require(answer.media.first { $0.kind == .audio })
            #expect(audio.rtpMaps.map(\.encodingName).contains { $0.lowercased() == "opus" })
            let video = try #require(answer.media.first { $0.kind == .video })
            #expect(video.rtpMaps.map(\.encodingName).contains("H264"))
            // The text is what it claims: CRLF lines ending in CRLF (RFC 8866 §5).
            #expect(created.answer.hasSuffix("\r\n") && created.answer.hasPrefix("v=0\r\n"))
        }
    }

    @Test("over real HTTP/1.1: preflight, publish, an oversized body, and the server still answers")
    func liveServer() async throws {
        try await withRelay({ $0.limits.maxBodyBytes = 8192 }, setup: .live) { relay, client in
            let preflight = try await client.execute(uri: "/whip/42", method: .options,
                                                     headers: [HTTPField.Name("Origin")!: "https://studio.example"])
            #expect(preflight.status == .noContent && preflight.headers[.accessControlAllowOrigin] == "*")
            let created = try await client.publish()
            #expect(created.location.hasPrefix("/whip/42/"))
            let answer = try SessionDescription.parse(created.answer)
            #expect(answer.media[0].candidates.filter(\.isUDP).allSatisfy { Int($0.port) == relay.udpPort })
            let huge = try await client.post("/whip/43", String(repeating: "a=x\r\n", count: 100_000))
            #expect(huge.status == .contentTooLarge)
            #expect(try await client.get("/healthz").status == .ok)
            #expect(try await client.delete(created.location).status == .ok)
        }
    }

    @Test("audio-only and video-only publishers are accepted")
    func singleKind() async throws {
        try await withRelay { _, client in
            let audio = try await client.publish(room: "audio", offer: TestOffers.publisher(video: false))
            #expect(try SessionDescription.parse(audio.answer).media.map(\.kind) == [.audio])
            let video = try await client.publish(room: "video", offer: TestOffers.publisher(audio: false))
            #expect(try SessionDescription.parse(video.answer).media.map(\.kind) == [.video])
        }
    }

    @Test("each session gets its own id, credentials and ETag")
    func distinctSessions() async throws {
        try await withRelay { _, client in
            let a = try await client.publish(room: "a"), b = try await client.publish(room: "b")
            #expect(a.location.split(separator: "/").last != b.location.split(separator: "/").last)
            #expect(a.etag != b.etag)
            let ua = try SessionDescription.parse(a.answer), ub = try SessionDescription.parse(b.answer)
            #expect(ua.iceUfrag(for: ua.media[0]) != ub.iceUfrag(for: ub.media[0]))
        }
    }

    @Test("a second publisher in a live room: 409; after DELETE the room takes a new one")
    func secondPublisher() async throws {
        try await withRelay { _, client in
            let first = try await client.publish()
            let second = try await client.post("/whip/42", TestOffers.publisher(ufrag: "othr"))
            #expect(second.status == .conflict)
            #expect(second.text.contains("42"), "\(second.text)")
            // Other rooms are independent.
            _ = try await client.publish(room: "43")
            #expect(try await client.delete(first.location).status == .ok)
            _ = try await client.publish(offer: TestOffers.publisher(ufrag: "thrd"))
        }
    }

    @Test("Content-Type must be application/sdp: 415 with Accept-Post", arguments: [
        "text/plain", "application/json", "application/sdpx", "multipart/form-data; boundary=x", nil,
    ] as [String?])
    func wrongContentType(contentType: String?) async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whip/42", TestOffers.publisher(), contentType: contentType)
            #expect(response.status == .unsupportedMediaType)
            #expect(response.headers[HTTPField.Name("Accept-Post")!] == "application/sdp")
            #expect(response.text.contains("application/sdp"))
            #expect(try await client.get("/api/streams/42").status == .notFound, "nothing was created")
        }
    }

    @Test("media type parameters and case do not matter (RFC 9110 §8.3.1)",
          arguments: ["application/sdp; charset=utf-8", "Application/SDP", "application/sdp ;x=y"])
    func contentTypeVariants(contentType: String) async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whip/42", TestOffers.publisher(), contentType: contentType)
            #expect(response.status == .created, "\(response.text)")
        }
    }

    @Test("a body over limits.max_body_bytes: 413")
    func bodyTooLarge() async throws {
        try await withRelay({ $0.limits.maxBodyBytes = 4096 }) { _, client in
            let offer = TestOffers.publisher()
            #expect(offer.utf8.count < 4096)
            let padded = offer + String(repeating: "a=x-padding:0123456789abcdef0123456789abcdef\r\n", count: 100)
            let response = try await client.post("/whip/42", padded)
            #expect(response.status == .contentTooLarge)
            #expect(response.text.contains("4096"), "\(response.text)")
            let huge = try await client.post("/whip/42", String(repeating: "v", count: 2_000_000))
            #expect(huge.status == .contentTooLarge)
            #expect(try await client.get("/api/streams/42").status == .notFound)
            // The limit is on the body, not on the offer: one that fits still works.
            _ = try await client.publish(offer: offer)
        }
    }

    @Test("garbage instead of SDP: 400 with the reason in the body", arguments: TestOffers.garbage)
    func garbage(body: String) async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whip/42", body)
            #expect(response.status == .badRequest, "\(response.status) for \(body.debugDescription)")
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(response.text.count > 10, "a reason for people: \(response.text.debugDescription)")
            #expect(try await client.get("/api/streams/42").status == .notFound)
        }
    }

    @Test("well-formed SDP the relay cannot take: 422 naming what was offered")
    func unacceptableCodecs() async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whip/42", TestOffers.vp8Only)
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("VP8") && response.text.contains("H.264"), "\(response.text)")
            #expect(try await client.get("/api/streams/42").status == .notFound)
        }
    }

    @Test("an offer without BUNDLE: 422")
    func noBundle() async throws {
        try await withRelay { _, client in
            let offer = TestOffers.publisher().replacingOccurrences(of: "a=group:BUNDLE 0 1\r\n", with: "")
            #expect(offer != TestOffers.publisher())
            let response = try await client.post("/whip/42", offer)
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.text.contains("BUNDLE"))
        }
    }

    @Test("an offer without a DTLS fingerprint is refused (RFC 8842 §5.1)")
    func noFingerprint() async throws {
        try await withRelay { _, client in
            let offer = TestOffers.publisher().split(separator: "\r\n").filter { !$0.hasPrefix("a=fingerprint") }
                .joined(separator: "\r\n") + "\r\n"
            let response = try await client.post("/whip/42", offer)
            #expect(response.status == .badRequest || response.status == .unprocessableContent, "\(response.status)")
            #expect(try await client.get("/api/streams/42").status == .notFound)
        }
    }

    @Test("room ids with characters outside A-Z a-z 0-9 - _ . or over 64 characters: 400",
          arguments: ["room!", "a%20b", "ro'om", "caf%C3%A9", String(repeating: "r", count: 65)])
    func badRoomID(room: String) async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whip/\(room)", TestOffers.publisher())
            #expect(response.status == .badRequest, "\(response.status) for \(room)")
            #expect(response.text.contains("room id"), "\(response.text)")
            #expect(try await client.post("/whep/\(room)", TestOffers.viewer()).status == .badRequest)
        }
    }

    @Test("the dot segments . and .. are not room ids: Location /whip/../<id> resolves to /<id> (RFC 3986 §5.2.4)",
          arguments: [".", ".."])
    func dotSegmentRoomID(room: String) async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whip/\(room)", TestOffers.publisher())
            #expect(response.status == .badRequest,
                    "\(response.status), Location: \(response.headers[.location] ?? "none")")
        }
    }

    @Test("room ids at the edges of the rule are fine", arguments: ["a", "A-z_0.9", "...", ".a", String(repeating: "r", count: 64)])
    func goodRoomID(room: String) async throws {
        try await withRelay { _, client in
            let created = try await client.publish(room: room)
            #expect(created.location.hasPrefix("/whip/\(room)/"))
        }
    }
}
