import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OnAirWebhooks

/// `POST /hooks/relay`: the relay's signed stream events (Standard Webhooks).
///
/// Order of checks, each before any state is touched: a secret is configured (503), the body
/// fits (413), the three `webhook-*` headers are present (400), the timestamp is within 5
/// minutes and a `v1` signature over the raw body matches one secret (401), the body is a
/// stream event naming a valid room (400). Then one store transaction dedupes by
/// `webhook-id`, ignores events older than the room's newest `(generation, sequence)`,
/// applies the rest, and only then the answer is 200 with what happened:
/// `{"status":"applied"|"duplicate"|"ignored", ...}` (duplicates are 2xx so the sender stops
/// retrying).
struct WebhookReceiver: Sendable {
    let secrets: [WebhookSecret]
    let directory: RoomDirectory
    let maxBodyBytes: Int
    let clock: WallClock
    let logger: Logger

    static let idHeader = HTTPField.Name("webhook-id")!
    static let timestampHeader = HTTPField.Name("webhook-timestamp")!
    static let signatureHeader = HTTPField.Name("webhook-signature")!

    struct Answer: Encodable {
        var status: String
        var room: String
        var state: String?
        var reason: String?
        var messageID: Int64?

        enum CodingKeys: String, CodingKey { case status, room, state, reason, messageID = "message_id" }
    }

    func receive(_ request: Request) async throws -> Response {
        guard !secrets.isEmpty else {
            throw ChatHTTPError(.serviceUnavailable, "no webhook secret configured (webhooks.secrets or ONAIR_CHAT_WEBHOOK_SECRET)")
        }
        let body: [UInt8]
        do {
            body = Array(buffer: try await request.body.collect(upTo: maxBodyBytes))
        } catch {
            throw ChatHTTPError(.contentTooLarge, "webhook body over \(maxBodyBytes) bytes")
        }
        guard let id = request.headers[Self.idHeader], let timestamp = request.headers[Self.timestampHeader],
              let signature = request.headers[Self.signatureHeader] else {
            throw ChatHTTPError(.badRequest, "needs webhook-id, webhook-timestamp and webhook-signature headers")
        }
        do {
            try WebhookSignature.verify(id: id, timestamp: timestamp, signatureHeader: signature, body: body,
                                        secrets: secrets, now: clock.date())
        } catch {
            logger.warning("webhook \(id.prefix(64)) refused: \(error)")
            switch error {
            case .missingHeader: throw ChatHTTPError(.badRequest, error.description)
            case .timestampOutOfTolerance, .noSignature, .badSignature: throw ChatHTTPError(.unauthorized, error.description)
            }
        }
        guard id.utf8.count <= 256 else { throw ChatHTTPError(.badRequest, "webhook-id longer than 256 bytes") }
        let event: StreamEvent
        do {
            event = try StreamEvent.decode(body)
        } catch {
            throw ChatHTTPError(.badRequest, "the body is not a stream event {type, timestamp, data{room, generation, sequence, ...}}")
        }
        let roomID = event.data.room
        guard ChatRoomID.isValid(roomID) else { throw ChatHTTPError(.badRequest, "data.room is not a valid room id") }
        let delivery = WebhookDelivery(id: id, room: roomID, type: event.type, receivedAt: clock.milliseconds())
        let outcome: Result<DeliveryOutcome, RoomRefusal>
        do {
            guard let room = try await directory.room(roomID, create: true) else { throw RoomRefusal.shuttingDown }
            outcome = try await room.ask { .streamEvent(event, delivery, $0) }
        } catch {
            throw ChatHTTPError(.serviceUnavailable, "chat is shutting down or its store failed; retry later")
        }
        let answer: Answer
        switch outcome {
        case .failure(let refusal):
            throw ChatHTTPError(.serviceUnavailable, "not stored (\(refusal)); retry later")
        case .success(.duplicate):
            logger.info("webhook \(id) for room \(roomID): duplicate, ignored")
            answer = Answer(status: "duplicate", room: roomID)
        case .success(.ignored(let reason, let record)):
            logger.info("webhook \(id) \(event.type) for room \(roomID): ignored (\(reason))")
            answer = Answer(status: "ignored", room: roomID, state: record.state.rawValue, reason: reason)
        case .success(.applied(let record, let message)):
            logger.info("webhook \(id) \(event.type) for room \(roomID): applied, room \(record.state.rawValue)")
            answer = Answer(status: "applied", room: roomID, state: record.state.rawValue, messageID: message?.id)
        }
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(answer))))
    }
}
