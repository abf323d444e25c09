import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OnAirDecoding
import OnAirWebhooks

/// The webhook admin API (admin Bearer token on every route):
///
///     POST   /api/webhooks                          {url, events?, description?} -> 201, secret shown once
///     GET    /api/webhooks                          list (no secrets)
///     GET    /api/webhooks/{id}
///     DELETE /api/webhooks/{id}                     204 (409 for config subscribers)
///     POST   /api/webhooks/{id}/rotate-secret       new secret; the old one signs too for 24 h
///     POST   /api/webhooks/{id}/enable              after a 410 disabled it
///     GET    /api/webhooks/{id}/deliveries          delivery log, newest first (?limit=&before=&state=)
///     POST   /api/webhooks/{id}/deliveries/{delivery}/redeliver   queue that delivery's event again -> 202
///     GET    /api/events?after=<seq>&limit=         the outbox, for catch-up after downtime
struct WebhookAdminController: Sendable {
    let store: any WebhookOutboxStore
    let dispatcher: WebhookDispatcher
    let config: RelayConfig
    /// The admin API takes `auth.admin_token` or a JWT with the `admin` grant.
    let access: RelayAccess
    let logger: Logger
    static let maxBodyBytes = 16 * 1024

    func register(on router: Router<BasicRequestContext>) {
        router.post("/api/webhooks") { request, _ in try await create(request) }
        router.get("/api/webhooks") { request, _ in
            try access.require(.admin, request)
            return try json(WebhookAPI.SubscriptionList(webhooks: try await store.subscriptions().map { .init($0) }))
        }
        router.get("/api/webhooks/:id") { request, context in
            try access.require(.admin, request)
            return try json(WebhookAPI.Subscription(try await existing(context)))
        }
        router.delete("/api/webhooks/:id") { request, context in
            try access.require(.admin, request)
            let subscription = try await existing(context)
            guard subscription.source == "api" else {
                throw RelayHTTPError(.conflict, "\(subscription.id) comes from the config file: remove it there")
            }
            _ = try await store.deleteSubscription(id: subscription.id)
            await dispatcher.remove(subscription.id)
            logger.notice("webhook subscription deleted", metadata: ["subscription": "\(subscription.id)"])
            return Response(status: .noContent)
        }
        router.post("/api/webhooks/:id/rotate-secret") { request, context in
            try access.require(.admin, request)
            let subscription = try await existing(context)
            guard subscription.source == "api" else {
                throw RelayHTTPError(.conflict, "\(subscription.id) comes from the config file: rotate with previous_secret there")
            }
            guard let rotated = try await store.rotateSecret(id: subscription.id, now: Date().timeIntervalSince1970) else {
                throw RelayHTTPError(.notFound, "no webhook subscription \(subscription.id)")
            }
            return try json(WebhookAPI.Subscription(rotated, showingSecret: true))
        }
        router.post("/api/webhooks/:id/enable") { request, context in
            try access.require(.admin, request)
            let subscription = try await existing(context)
            guard let enabled = try await store.enableSubscription(id: subscription.id) else {
                throw RelayHTTPError(.notFound, "no webhook subscription \(subscription.id)")
            }
            await dispatcher.wake([enabled.id])
            return try json(WebhookAPI.Subscription(enabled))
        }
        router.get("/api/webhooks/:id/deliveries") { request, context in
            try access.require(.admin, request)
            let subscription = try await existing(context)
            let limit = try Self.integer(request, "limit", default: 50, in: 1...500)
            let before = try Self.integer(request, "before", default: Int64.max, in: 1...Int64.max)
            let state = request.uri.queryParameters.get("state")
            if let state, !["pending", "delivered", "failed", "cancelled"].contains(state) {
                throw RelayHTTPError(.badRequest, "state must be pending, delivered, failed or cancelled")
            }
            let page = try await store.deliveries(subscription: subscription.id, limit: Int(limit), before: before, state: state)
            return try json(WebhookAPI.DeliveryList(deliveries: page, nextBefore: page.count == Int(limit) ? page.last?.id : nil))
        }
        router.post("/api/webhooks/:id/deliveries/:delivery/redeliver") { request, context in
            try access.require(.admin, request)
            let subscription = try await existing(context)
            guard subscription.enabled else {
                throw RelayHTTPError(.conflict, "\(subscription.id) is disabled (\(subscription.disabledReason ?? "")): enable it first")
            }
            guard let deliveryID = Int64(try context.parameters.require("delivery")),
                  let queued = try await store.redeliver(subscription: subscription.id, delivery: deliveryID,
                                                         now: Date().timeIntervalSince1970) else {
                throw RelayHTTPError(.notFound, "\(subscription.id) has no such delivery")
            }
            await dispatcher.wake([subscription.id])
            return try json(queued, status: .accepted)
        }
        router.get("/api/events") { request, _ in
            try access.require(.admin, request)
            let after = try Self.integer(request, "after", default: 0, in: 0...Int64.max)
            let limit = try Self.integer(request, "limit", default: 100, in: 1...1000)
            let events = try await store.events(after: after, limit: Int(limit)).map { event in
                WebhookAPI.Event(seq: event.seq, id: event.id, type: event.type, room: event.room, generation: event.generation,
                                 sequence: event.sequence, createdAt: event.createdAt, payload: try StreamEvent.decode(event.body))
            }
            return try json(WebhookAPI.EventList(events: events, nextAfter: events.last?.seq ?? after))
        }
    }

    private func create(_ request: Request) async throws -> Response {
        try access.require(.admin, request)
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw RelayHTTPError(.contentTooLarge, "body larger than \(Self.maxBodyBytes) bytes")
        }
        let create: WebhookAPI.CreateRequest
        do {
            create = try JSONRequestBody.decode(WebhookAPI.CreateRequest.self, from: Data(body.readableBytesView))
        } catch {
            throw RelayHTTPError(error.isSyntax ? .badRequest : .unprocessableContent,
                                 "\(error); expected {\"url\": \"https://...\", \"events\": [\"stream.ended\", ...], \"secret\": \"whsec_...\"}")
        }
        var secret: WebhookSecret?
        if let text = create.secret {
            do {
                secret = try WebhookSecret(text)
            } catch {
                throw RelayHTTPError(.unprocessableContent, "secret: \(error)")
            }
        }
        guard WebhookURL.isAcceptable(create.url) else {
            throw RelayHTTPError(.unprocessableContent, "url must be an absolute http:// or https:// URL")
        }
        let unknown = (create.events ?? []).filter { !StreamEventType.all.contains($0) }
        guard unknown.isEmpty else {
            throw RelayHTTPError(.unprocessableContent,
                                 "unknown event types \(unknown) (known: \(StreamEventType.all.joined(separator: ", ")))")
        }
        let subscription = try await store.createSubscription(url: create.url, eventTypes: create.events ?? [],
                                                              description: create.description, secret: secret,
                                                              now: Date().timeIntervalSince1970)
        await dispatcher.wake([subscription.id])
        logger.notice("webhook subscription created", metadata: ["subscription": "\(subscription.id)", "url": "\(subscription.url)"])
        var response = try json(WebhookAPI.Subscription(subscription, showingSecret: true), status: .created)
        response.headers[.location] = "/api/webhooks/\(subscription.id)"
        return response
    }

    private func existing(_ context: BasicRequestContext) async throws -> WebhookSubscription {
        let id = try context.parameters.require("id")
        guard let subscription = try await store.subscription(id: id) else {
            throw RelayHTTPError(.notFound, "no webhook subscription \(id)")
        }
        return subscription
    }

    private static func integer(_ request: Request, _ name: String, default fallback: Int64,
                                in range: ClosedRange<Int64>) throws -> Int64 {
        guard let text = request.uri.queryParameters.get(name) else { return fallback }
        guard let value = Int64(text), range.contains(value) else {
            throw RelayHTTPError(.badRequest, "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    private func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
