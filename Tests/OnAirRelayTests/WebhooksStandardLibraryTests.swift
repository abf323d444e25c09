import Foundation
import OnAirWebhooks
import Testing
@testable import OnAirRelay

/// Our signing and verification against the independent PyPI `standardwebhooks` library.
/// The vector was produced once with the interop venv (standardwebhooks 1.1.0):
///
///     from standardwebhooks.webhooks import Webhook
///     secret = "whsec_" + base64.b64encode(bytes(range(32))).decode()
///     Webhook(secret).sign("evt_0123456789abcdef01234567",
///                          datetime.fromtimestamp(1748779200, tz=timezone.utc), payload)
///
/// (Tests/Interop/test_webhooks.py checks the other direction live: the library verifies what
/// the relay sends.)
@Suite("Webhooks: standardwebhooks (PyPI) vector")
struct WebhooksStandardLibraryTests {
    static let secret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static let id = "evt_0123456789abcdef01234567"
    static let timestamp: Int64 = 1_748_779_200
    static let payload = #"{"data":{"event_id":"evt_0123456789abcdef01234567","generation":3,"reason":"publisher_timeout","room":"42","sequence":7,"session_id":"s1"},"timestamp":"2025-06-01T12:00:00.000Z","type":"stream.ended"}"#
    static let librarySignature = "v1,nICg0ptQyqaYra3L0IkhD/gurFf62urL7HfkmVoxZ0U="

    @Test("our verifier accepts the library's signature; tampering is refused")
    func verifiesLibrarySignature() throws {
        let secret = try WebhookSecret(Self.secret)
        let now = Date(timeIntervalSince1970: Double(Self.timestamp) + 30)
        try WebhookSignature.verify(id: Self.id, timestamp: String(Self.timestamp), signatureHeader: Self.librarySignature,
                                    body: Array(Self.payload.utf8), secrets: [secret], now: now)
        #expect(throws: WebhookVerificationError.badSignature) {
            try WebhookSignature.verify(id: Self.id, timestamp: String(Self.timestamp + 1), signatureHeader: Self.librarySignature,
                                        body: Array(Self.payload.utf8), secrets: [secret], now: now)
        }
    }

    @Test("the relay's headers for that delivery carry exactly the library's signature")
    func signsLikeTheLibrary() throws {
        let headers = WebhookPoster.headers(eventID: Self.id, body: Array(Self.payload.utf8),
                                            secrets: [try WebhookSecret(Self.secret)], now: Double(Self.timestamp) + 0.9)
        let fields = Dictionary(uniqueKeysWithValues: headers)
        #expect(fields["webhook-id"] == Self.id)
        #expect(fields["webhook-timestamp"] == String(Self.timestamp), "whole seconds, rounded down")
        #expect(fields["webhook-signature"] == Self.librarySignature)
        #expect(fields["content-type"] == "application/json")
    }

    @Test("the payload shape the library example uses is what the relay stores: {type, timestamp, data}")
    func payloadShape() throws {
        let event = try StreamEvent.decode(Array(Self.payload.utf8))
        #expect(try event.encoded() == Array(Self.payload.utf8), "canonical encoding: sorted keys, no spaces")
    }
}
