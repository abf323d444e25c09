import HTTPTypes
import HummingbirdTesting
import OnAirSDP
import Testing
@testable import OnAirRelay

/// The session resources a POST creates: `DELETE` (RFC 9725 §4.2) and `PATCH` for trickle ICE
/// and ICE restarts (RFC 9725 §4.3, RFC 8840 sdpfrag bodies).
@Suite("WHIP/WHEP session resources")
struct SessionResourceTests {
    /// An sdpfrag with the client's current credentials and one more candidate (trickle).
    static func trickle(ufrag: String? = TestOffers.clientUfrag, password: String? = TestOffers.clientPassword) -> String {
        SDPFragment(iceUfrag: ufrag, icePassword: password, candidates: [
            (mid: "0", kind: .audio, candidates: [
                ICECandidate(foundation: "2", priority: 1_694_498_815, address: "192.0.2.7", port: 50_001, type: .serverReflexive,
                             relatedAddress: "127.0.0.1", relatedPort: 50_000),
            ]),
        ], endOfCandidates: true).serialize()
    }

    /// An sdpfrag with new credentials: an ICE restart (RFC 8839 §4.4.1.1.1).
    static func restart(ufrag: String = "rst1", password: String = "restartpasswordrestartpw") -> String {
        SDPFragment(iceUfrag: ufrag, icePassword: password, candidates: [
            (mid: "0", kind: .audio, candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 50_002)]),
        ]).serialize()
    }

    @Test("DELETE ends the session: 200, then the room is gone")
    func deleteEndsSession() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            #expect(try await client.get("/api/streams/42").status == .ok)
            #expect(try await client.delete(created.location).status == .ok)
            #expect(try await client.get("/api/streams/42").status == .notFound)
            #expect(try await client.delete(created.location).status == .notFound, "a second DELETE finds nothing")
        }
    }

    @Test("DELETE of unknown sessions, other rooms and the other kind: 404")
    func deleteUnknown() async throws {
        try await withRelay { _, client in
            #expect(try await client.delete("/whip/42/0123456789abcdef0123456789abcdef").status == .notFound)
            #expect(try await client.delete("/whep/42/nope").status == .notFound)
            let created = try await client.publish()
            let id = try #require(created.location.split(separator: "/").last)
            #expect(try await client.delete("/whip/43/\(id)").status == .notFound)
            #expect(try await client.delete("/whep/42/\(id)").status == .notFound)
            #expect(try await client.get("/api/streams/42").status == .ok, "the session survived")
        }
    }

    @Test("trickle PATCH with the current ETag, with none, or with *: 204")
    func trickle() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            for ifMatch in [created.etag, nil, "*"] {
                let response = try await client.patch(created.location, Self.trickle(), ifMatch: ifMatch)
                #expect(response.status == .noContent, "If-Match \(ifMatch ?? "none"): \(response.status) \(response.text)")
            }
            // Candidates alone, without credentials, are trickle too.
            let bare = try await client.patch(created.location, Self.trickle(ufrag: nil, password: nil))
            #expect(bare.status == .noContent, "\(bare.text)")
            // RFC 8840 §4.4: end-of-candidates alone.
            let end = try await client.patch(created.location, "a=end-of-candidates\r\n")
            #expect(end.status == .noContent, "\(end.text)")
        }
    }

    @Test("trickle PATCH with a stale ETag: 412")
    func trickleStale() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let response = try await client.patch(created.location, Self.trickle(), ifMatch: "\"0000\"")
            #expect(response.status == .preconditionFailed)
        }
    }

    @Test("ICE restart without If-Match: 428")
    func restartWithoutIfMatch() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let response = try await client.patch(created.location, Self.restart())
            #expect(response.status == .preconditionRequired, "\(response.status) \(response.text)")
        }
    }

    @Test("ICE restart with a stale ETag: 412")
    func restartStale() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let response = try await client.patch(created.location, Self.restart(), ifMatch: "\"0123456789abcdef\"")
            #expect(response.status == .preconditionFailed, "\(response.status) \(response.text)")
        }
    }

    @Test("ICE restart with the ETag: 200, an sdpfrag with new credentials and candidates, a new ETag")
    func restart() async throws {
        try await withRelay { relay, client in
            let created = try await client.publish()
            let oldAnswer = try SessionDescription.parse(created.answer)
            let oldUfrag = try #require(oldAnswer.iceUfrag(for: oldAnswer.media[0]))
            let response = try await client.patch(created.location, Self.restart(), ifMatch: created.etag)
            #expect(response.status == .ok, "\(response.status) \(response.text)")
            #expect(response.headers[.contentType] == "application/trickle-ice-sdpfrag")
            let newETag = try #require(response.headers[.eTag])
            #expect(newETag != created.etag && newETag.hasPrefix("\"") && newETag.hasSuffix("\""))

            let fragment = try SDPFragment.parse(response.text)
            let ufrag = try #require(fragment.announcedUfrag), password = try #require(fragment.announcedPassword)
            #expect(ufrag != oldUfrag && ufrag.count >= 4 && password.count >= 22)
            let candidates = fragment.allCandidates.map(\.candidate)
            #expect(!candidates.isEmpty && candidates.allSatisfy { Int($0.port) == ($0.isUDP ? relay.udpPort : relay.tcpPort) })
            #expect(fragment.isEndOfCandidates)
            #expect(Set(fragment.media.compactMap(\.mid)).isSubset(of: ["0", "1"]))

            // The old tag is stale now; the new one works for the next restart.
            let stale = try await client.patch(created.location, Self.restart(ufrag: "rst2"), ifMatch: created.etag)
            #expect(stale.status == .preconditionFailed)
            let again = try await client.patch(created.location, Self.restart(ufrag: "rst3"), ifMatch: newETag)
            #expect(again.status == .ok, "\(again.text)")
            // Trickle with the restarted credentials is trickle again, not another restart.
            let trickle = try await client.patch(created.location, Self.trickle(ufrag: "rst3", password: "restartpasswordrestartpw"))
            #expect(trickle.status == .noContent, "\(trickle.status) \(trickle.text)")
        }
    }

    @Test("If-Match uses strong comparison: a weak tag never matches (RFC 9110 §13.1.1, §8.8.3.2)")
    func weakIfMatch() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let weak = "W/" + created.etag
            let restart = try await client.patch(created.location, Self.restart(), ifMatch: weak)
            #expect(restart.status == .preconditionFailed, "If-Match: \(weak) -> \(restart.status)")
            let trickle = try await client.patch(created.location, Self.trickle(), ifMatch: weak)
            #expect(trickle.status == .preconditionFailed, "If-Match: \(weak) -> \(trickle.status)")
            // Among several tags, the current one (strong) matches (a session of its own, so
            // that this holds whatever the weak tag did above).
            let other = try await client.publish(room: "43")
            let list = try await client.patch(other.location, Self.restart(), ifMatch: "\"stale\", \(other.etag)")
            #expect(list.status == .ok, "\(list.status) \(list.text)")
        }
    }

    @Test("ICE restart with a ufrag but no password: 400")
    func restartWithoutPassword() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let fragment = "a=ice-ufrag:newU\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n"
            let response = try await client.patch(created.location, fragment, ifMatch: created.etag)
            #expect(response.status == .badRequest, "\(response.status) \(response.text)")
        }
    }

    @Test("PATCH also works on WHEP sessions")
    func viewerRestart() async throws {
        try await withRelay { _, client in
            _ = try await client.publish()
            let viewer = try await client.watch()
            #expect(try await client.patch(viewer.location, Self.trickle(ufrag: "viwU", password: TestOffers.clientPassword)).status == .noContent)
            let restart = try await client.patch(viewer.location, Self.restart(), ifMatch: viewer.etag)
            #expect(restart.status == .ok, "\(restart.text)")
        }
    }

    @Test("PATCH refusals: wrong Content-Type 415 with Accept-Patch, garbage 400, unknown session 404")
    func patchRefusals() async throws {
        try await withRelay { _, client in
            let created = try await client.publish()
            let wrongType = try await client.patch(created.location, Self.trickle(), contentType: "application/sdp")
            #expect(wrongType.status == .unsupportedMediaType)
            // RFC 5789 §2.2: a 415 to a PATCH names the accepted types in Accept-Patch.
            #expect(wrongType.headers[HTTPField.Name("Accept-Patch")!] == "application/trickle-ice-sdpfrag")
            #expect(wrongType.headers[HTTPField.Name("Accept-Post")!] == nil)
            let garbage = try await client.patch(created.location, "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n")
            #expect(garbage.status == .badRequest, "\(garbage.status)")
            #expect(!garbage.text.isEmpty)
            let binary = try await client.patch(created.location, "\u{0}\u{FF}\u{1}")
            #expect(binary.status == .badRequest, "\(binary.status)")
            let unknown = try await client.patch("/whip/42/ffffffffffffffffffffffffffffffff", Self.trickle())
            #expect(unknown.status == .notFound)
            let id = try #require(created.location.split(separator: "/").last)
            #expect(try await client.patch("/whep/42/\(id)", Self.trickle()).status == .notFound)
            #expect(try await client.get("/api/streams/42").status == .ok, "the session survived")
        }
    }

    @Test("PATCH bodies are bounded by limits.max_body_bytes: 413")
    func patchTooLarge() async throws {
        try await withRelay({ $0.limits.maxBodyBytes = 2048 }) { _, client in
            let created = try await client.publish()
            let response = try await client.patch(created.location, String(repeating: "a=end-of-candidates\r\n", count: 200))
            #expect(response.status == .contentTooLarge)
        }
    }
}
