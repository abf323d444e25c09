import Foundation
import Testing
@testable import OnAirWebhooks

@Suite struct WebhookSignatureTests {
    /// The example from the Standard Webhooks reference implementations' test suites:
    /// secret, id, timestamp and payload give exactly this signature.
    @Test func standardWebhooksExampleVector() throws {
        let secret = try WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let header = WebhookSignature.sign(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body, secrets: [secret])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        try WebhookSignature.verify(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: "1614265330", signatureHeader: header,
                                    body: body, secrets: [secret], now: Date(timeIntervalSince1970: 1_614_265_330))
    }

    @Test func rejectsTamperingStaleTimestampsAndWrongSecrets() throws {
        let secret = WebhookSecret.generate()
        let other = WebhookSecret.generate()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let body = Array(#"{"type":"stream.ended"}"#.utf8)
        let header = WebhookSignature.sign(id: "evt_1", timestamp: 1_800_000_000, body: body, secrets: [secret])
        #expect(throws: WebhookVerificationError.badSignature) {
            try WebhookSignature.verify(id: "evt_1", timestamp: "1800000000", signatureHeader: header,
                                        body: body + [0x20], secrets: [secret], now: now)
        }
        #expect(throws: WebhookVerificationError.badSignature) {
            try WebhookSignature.verify(id: "evt_2", timestamp: "1800000000", signatureHeader: header,
                                        body: body, secrets: [secret], now: now)
        }
        #expect(throws: WebhookVerificationError.badSignature) {
            try WebhookSignature.verify(id: "evt_1", timestamp: "1800000000", signatureHeader: header,
                                        body: body, secrets: [other], now: now)
        }
        #expect(throws: WebhookVerificationError.timestampOutOfTolerance(age: 301)) {
            try WebhookSignature.verify(id: "evt_1", timestamp: "1800000000", signatureHeader: header,
                                        body: body, secrets: [secret], now: now.addingTimeInterval(301))
        }
        #expect(throws: WebhookVerificationError.noSignature) {
            try WebhookSignature.verify(id: "evt_1", timestamp: "1800000000", signatureHeader: "v2,abc",
                                        body: body, secrets: [secret], now: now)
        }
    }

    /// During rotation the sender signs with both secrets; a receiver knowing either accepts.
    @Test func rotationSignsWithEverySecret() throws {
        let old = WebhookSecret.generate()
        let new = WebhookSecret.generate()
        let body = Array("{}".utf8)
        let header = WebhookSignature.sign(id: "evt", timestamp: 100, body: body, secrets: [new, old])
        #expect(header.split(separator: " ").count == 2)
        for secret in [old, new] {
            try WebhookSignature.verify(id: "evt", timestamp: "100", signatureHeader: header, body: body,
                                        secrets: [secret], now: Date(timeIntervalSince1970: 100))
        }
    }

    @Test func secretParsing() throws {
        #expect(throws: WebhookSecret.ParseError.missingPrefix) { try WebhookSecret("abc") }
        #expect(throws: WebhookSecret.ParseError.notBase64) { try WebhookSecret("whsec_***") }
        let secret = WebhookSecret.generate()
        #expect(try WebhookSecret(secret.encoded) == secret)
        #expect(!secret.description.contains(secret.encoded.dropFirst(6)))
    }

    @Test func eventRoundTrip() throws {
        let event = StreamEvent(type: StreamEvent.ended, timestamp: "2026-11-22T05:00:00Z",
                                data: StreamEventData(eventID: "evt_1", room: "42", generation: 3, sequence: 7,
                                                      sessionID: "s", reason: "publisher_timeout", durationSeconds: 12.5))
        let bytes = try event.encoded()
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""reason":"publisher_timeout""#))
        #expect(try StreamEvent.decode(bytes) == event)
    }
}
