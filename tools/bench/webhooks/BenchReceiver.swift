import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OnAirWebhooks
import ServiceLifecycle
import Synchronization

/// The local webhook receiver: verifies every signature (like a real subscriber must), then
/// records when each event arrived, keyed by "type room".
final class BenchReceiver: Sendable {
    private struct State {
        var expected: [String: Double] = [:]   // key -> enqueue time (monotonic seconds)
        var latenciesMs: [Double] = []
        var received = 0
        var badSignatures = 0
    }
    private let state = Mutex(State())
    let secret: WebhookSecret

    init(secret: WebhookSecret) { self.secret = secret }

    /// The bench is about to enqueue `key` at `at` (monotonic seconds).
    func expect(_ key: String, at: Double) { state.withLock { $0.expected[key] = at } }

    var received: Int { state.withLock { $0.received } }
    var badSignatures: Int { state.withLock { $0.badSignatures } }

    /// The latencies recorded since the last call, emptied.
    func takeLatencies() -> [Double] {
        state.withLock { state in
            defer { state.latenciesMs.removeAll() }
            return state.latenciesMs
        }
    }

    func resetCount() { state.withLock { $0.received = 0 } }

    func handle(id: String, timestamp: String, signature: String, body: [UInt8]) -> Bool {
        let arrived = Monotonic.seconds()
        do {
            try WebhookSignature.verify(id: id, timestamp: timestamp, signatureHeader: signature, body: body, secrets: [secret])
        } catch {
            state.withLock { $0.badSignatures += 1 }
            return false
        }
        guard let event = try? StreamEvent.decode(body) else { return false }
        let key = event.type + " " + event.data.room
        state.withLock { state in
            state.received += 1
            if let sent = state.expected.removeValue(forKey: key) {
                state.latenciesMs.append((arrived - sent) * 1000)
            }
        }
        return true
    }

    /// Starts the HTTP server on 127.0.0.1 (a free port); returns the URL and the group to stop.
    func start(logger: Logger) async throws -> (url: String, group: ServiceGroup) {
        let router = Router()
        router.post("/hook") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            func header(_ name: String) -> String { request.headers[HTTPField.Name(name)!] ?? "" }
            let ok = handle(id: header("webhook-id"), timestamp: header("webhook-timestamp"),
                            signature: header("webhook-signature"), body: Array(body.readableBytesView))
            return Response(status: ok ? .noContent : .badRequest)
        }
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  portContinuation.yield(channel.localAddress?.port ?? 0)
                                  portContinuation.finish()
                              }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        Task { try await group.run() }
        var port = 0
        for await p in portStream { port = p }
        return ("http://127.0.0.1:\(port)/hook", group)
    }
}

/// Monotonic seconds (CLOCK_MONOTONIC), comparable across tasks.
enum Monotonic {
    static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
