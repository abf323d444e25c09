import OnAirForwarding
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
@testable import OnAirRelay

/// A real webhook receiver for the tests: a Hummingbird app on 127.0.0.1 that records every
/// POST (headers, raw body, arrival time) and answers what the test's plan says.
actor WebhookTestReceiver {
    struct Received: Sendable {
        var id: String
        var timestamp: String
        var signature: String
        var contentType: String?
        var body: [UInt8]
        var at: Double
    }

    /// (event id, how many times that id arrived including this one) -> (status, Retry-After).
    typealias Plan = @Sendable (_ eventID: String, _ arrival: Int) -> (status: Int, retryAfter: String?)

    private(set) var received: [Received] = []
    private var plan: Plan

    init(plan: @escaping Plan = { _, _ in (200, nil) }) { self.plan = plan }

    func setPlan(_ plan: @escaping Plan) { self.plan = plan }

    func receive(_ request: Received) -> (status: Int, retryAfter: String?) {
        received.append(request)
        return plan(request.id, received.filter { $0.id == request.id }.count)
    }

    /// Waits until at least `count` requests arrived (false after `timeout` seconds).
    func waitFor(count: Int, timeout: Double = 10) async -> Bool {
        let deadline = Date().timeIntervalSince1970 + timeout
        while received.count < count {
            if Date().timeIntervalSince1970 > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    var ids: [String] { received.map(\.id) }

    /// Runs `body` with the receiver listening; `body` gets the URL to subscribe.
    func serve(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            func header(_ name: String) -> String { request.headers[HTTPField.Name(name)!] ?? "" }
            let answer = await self.receive(Received(
                id: header("webhook-id"), timestamp: header("webhook-timestamp"), signature: header("webhook-signature"),
                contentType: request.headers[.contentType], body: Array(bytes.readableBytesView),
                at: Date().timeIntervalSince1970))
            var headers = HTTPFields()
            if let retryAfter = answer.retryAfter { headers[.retryAfter] = retryAfter }
            return Response(status: HTTPResponse.Status(code: answer.status), headers: headers)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port!)/hook")
        }
    }
}

/// Builders shared by the webhook tests.
enum WebhookFixtures {
    static var quietLogger: Logger {
        var logger = Logger(label: "webhooks-test")
        logger.logLevel = .critical
        return logger
    }

    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("onair-webhooks-\(UUID().uuidString).sqlite").path
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func started(_ room: String, _ session: String, at: Double = Date().timeIntervalSince1970) -> StreamStarted {
        StreamStarted(room: room, session: session, codecs: ["video/H264/90000"], at: at)
    }

    static func ended(_ room: String, _ session: String, _ reason: StreamEndReason = .publisherDeleted,
                      peak: Int = 0, at: Double = Date().timeIntervalSince1970) -> StreamEnded {
        StreamEnded(room: room, session: session, reason: reason, durationSeconds: 12.5, bytesIn: 1000, bytesOut: 3000,
                    peakViewers: peak, at: at)
    }

    /// A dispatcher over `store` with a fresh poster (2 s timeout); stop it with `stop(_:)`.
    static func dispatcher(_ store: any WebhookOutboxStore) -> (WebhookDispatcher, WebhookPoster) {
        let poster = WebhookPoster(timeoutSeconds: 2)
        return (WebhookDispatcher(store: store, poster: poster, policy: DeliveryPolicy(schedule: store.schedule),
                                  logger: quietLogger), poster)
    }

    /// Lets in-flight attempts finish and be logged (as the service's shutdown does), then stops.
    static func stop(_ running: (WebhookDispatcher, WebhookPoster)) async {
        await running.0.drain(grace: .seconds(2))
        await running.0.stop()
        await running.1.shutdown()
    }
}
