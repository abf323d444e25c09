import HTTPTypes
import HummingbirdTesting
import OnAirSDP
import Testing
@testable import OnAirRelay

/// `POST /whep/{room}` (draft-ietf-wish-whep) against a real relay in the process.
@Suite("WHEP endpoint")
struct WHEPEndpointTests {
    @Test("a room with no publisher: 409 with Retry-After")
    func offlineRoom() async throws {
        try await withRelay { _, client in
            let response = try await client.post("/whep/42", TestOffers.viewer())
            #expect(response.status == .conflict)
            let retryAfter = try #require(response.headers[.retryAfter])
            #expect(Int(retryAfter).map { $0 > 0 } == true, "Retry-After: \(retryAfter)")
            #expect(response.text.contains("42"))
            // Refusing the viewer leaves no trace of the room.
            #expect(try await client.get("/api/streams/42").status == .notFound)
        }
    }

    @Test("with a publisher: 201 and a sendonly answer announcing the relay's sources")
    func watches() async throws {
        try await withRelay { relay, client in
            _ = try await client.publish()
            let created = try await client.watch()
            #expect(created.response.headers[.contentType] == "application/sdp")
            #expect(created.location.hasPrefix("/whep/42/"))
            #expect(created.etag.hasPrefix("\"") && created.etag.hasSuffix("\""))

            let answer = try SessionDescription.parse(created.answer)
            #expect(answer.iceLite && answer.bundleMids == ["0", "1"])
            var ssrcs: Set<UInt32> = []
            for media in answer.media {
                #expect(media.port != 0)
                #expect(answer.direction(for: media) == .sendonly)
                #expect(answer.setup(for: media) == .passive)
                #expect(answer.fingerprints(for: media).contains(
                    DTLSFingerprint(algorithm: "sha-256", bytes: relay.certificate.fingerprintSHA256)))
                // RFC 5576: the relay's SSRC with a cname, and the msid the track belongs to.
                let attributes = media.ssrcAttributes
                #expect(attributes.contains { $0.name == "cname" }, "m-line \(media.kind)")
                #expect(!media.msids.isEmpty || attributes.contains { $0.name == "msid" })
                ssrcs.formUnion(attributes.map(\.ssrc))
            }
            #expect(ssrcs.count >= 2 && !ssrcs.contains(1111) && !ssrcs.contains(2222),
                    "viewers get the relay's own SSRCs, not the publisher's: \(ssrcs)")
            #expect(answer.media[0].candidates.filter(\.isUDP).allSatisfy { Int($0.port) == relay.udpPort })
            let video = try #require(answer.media.first { $0.kind == .video })
            #expect(video.rtpMaps.contains { $0.encodingName == "H264" })
        }
    }

    @Test("each viewer has its own SSRCs and session")
    func viewersAreDistinct() async throws {
        try await withRelay { _, client in
            _ = try await client.publish()
            let a = try await client.watch(offer: TestOffers.viewer(ufrag: "vwrA"))
            let b = try await client.watch(offer: TestOffers.viewer(ufrag: "vwrB"))
            #expect(a.location != b.location && a.etag != b.etag)
            let ssrcsA = try SessionDescription.parse(a.answer).media.flatMap(\.ssrcAttributes).map(\.ssrc)
            let ssrcsB = try SessionDescription.parse(b.answer).media.flatMap(\.ssrcAttributes).map(\.ssrc)
            #expect(Set(ssrcsA).isDisjoint(with: ssrcsB))
        }
    }

    @Test("a viewer that cannot receive the stream's codec: 422 naming it")
    func viewerWithoutH264() async throws {
        try await withRelay { _, client in
            _ = try await client.publish(offer: TestOffers.publisher(audio: false))
            let vp8Viewer = TestOffers.vp8Only.replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
            let response = try await client.post("/whep/42", vp8Viewer)
            #expect(response.status == .unprocessableContent, "\(response.status): \(response.text)")
            #expect(response.text.contains("H.264") || response.text.contains("H264"), "\(response.text)")
        }
    }

    @Test("garbage instead of SDP from a viewer: 400", arguments: TestOffers.garbage.prefix(4))
    func garbage(body: String) async throws {
        try await withRelay { _, client in
            _ = try await client.publish()
            let response = try await client.post("/whep/42", body)
            #expect(response.status == .badRequest, "\(response.status) for \(body.debugDescription)")
            #expect(!response.text.isEmpty)
        }
    }

    @Test("viewers leave the room when its publisher is deleted")
    func publisherDeletionEndsViewers() async throws {
        try await withRelay { _, client in
            let publisher = try await client.publish()
            let viewer = try await client.watch()
            #expect(try await client.delete(publisher.location).status == .ok)
            #expect(try await client.delete(viewer.location).status == .notFound, "the viewer session ended with the stream")
            #expect(try await client.get("/api/streams/42").status == .notFound)
            #expect(try await client.post("/whep/42", TestOffers.viewer()).status == .conflict)
        }
    }
}
