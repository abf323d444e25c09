import FuzzSupport
import Foundation
import OnAirWebhooks

// fuzz-webhook: one input is a webhook delivery as the chat's receiver (POST /hooks/relay)
// reads it: chunks for the webhook-id, webhook-timestamp and webhook-signature headers, the
// body, and a secret. Runs the Standard Webhooks verification and the stream event decoder.
//
// Invariants: a body signed with a secret verifies with it (and not with another secret, and
// not once a byte of it changed); a body that decodes as a stream event encodes to bytes that
// decode to the same event.

private let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let id = String(decoding: input.chunk() ?? [], as: UTF8.self)
    let timestamp = String(decoding: input.chunk() ?? [], as: UTF8.self)
    let signature = String(decoding: input.chunk() ?? [], as: UTF8.self)
    let body = input.chunk() ?? []
    let secretBytes = input.rest()
    let secret = WebhookSecret(bytes: secretBytes.isEmpty ? [0] : secretBytes)

    // Whatever the headers say: an answer, never a trap.
    _ = try? WebhookSignature.verify(id: id, timestamp: timestamp, signatureHeader: signature, body: body,
                                     secrets: [secret], now: now)
    if let text = String(bytes: secretBytes, encoding: .utf8) { _ = try? WebhookSecret(text) }

    // Signed here, verified here.
    let id2 = id.isEmpty ? "msg_1" : id
    let seconds = Int64(now.timeIntervalSince1970)
    let signed = WebhookSignature.sign(id: id2, timestamp: seconds, body: body, secrets: [secret])
    let verified = (try? WebhookSignature.verify(id: id2, timestamp: String(seconds), signatureHeader: signed, body: body,
                                                 secrets: [secret], now: now)) != nil
    fuzzCheck(verified, "a body signed with a secret does not verify with it")
    let other = WebhookSecret(bytes: secret.bytes.map { $0 ^ 0x01 })
    let forged = (try? WebhookSignature.verify(id: id2, timestamp: String(seconds), signatureHeader: signed, body: body,
                                               secrets: [other], now: now)) != nil
    fuzzCheck(!forged, "a signature verified with another secret")
    if !body.isEmpty {
        var changed = body
        changed[changed.count / 2] ^= 0x20
        let tampered = (try? WebhookSignature.verify(id: id2, timestamp: String(seconds), signatureHeader: signed,
                                                     body: changed, secrets: [secret], now: now)) != nil
        fuzzCheck(!tampered, "a changed body still verified")
    }

    if let event = try? StreamEvent.decode(body), let encoded = try? event.encoded() {
        fuzzCheck((try? StreamEvent.decode(encoded)) == event, "a stream event does not survive encode and decode")
    }
    return 0
}
