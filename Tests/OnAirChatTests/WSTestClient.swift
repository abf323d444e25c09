import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// A WebSocket chat client for tests: frames received are kept in order; `next` takes the
/// first one (optionally of a type, leaving the others queued) with a deadline, so a missing
/// frame fails the test instead of hanging it.
final class WSTestClient: Sendable {
    /// Filled by the connection task, read by the test.
    private final class Inbox: Sendable {
        let received = Mutex<[String]>([])
        let closed = Mutex<Bool>(false)
    }

    private let inbox: Inbox
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<Void, any Error>

    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    init(port: Int, path: String) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        outgoing = continuation
        let inbox = Inbox()
        self.inbox = inbox
        task = Task {
            defer { inbox.closed.withLock { $0 = true } }
            var logger = Logger(label: "ws-test-client")
            logger.logLevel = .critical
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)\(path)", logger: logger) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in stream { try await outbound.write(.text(text)) }
                    }
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        if case .text(let text) = message { inbox.received.withLock { $0.append(text) } }
                    }
                    group.cancelAll()
                }
            }
        }
    }

    var isClosed: Bool { inbox.closed.withLock { $0 } }

    func send(_ object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object)
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }

    func sendRaw(_ text: String) { outgoing.yield(text) }

    /// The next frame (of `type`, skipping others), as a JSON object.
    func next(_ type: String? = nil, timeout: Duration = .seconds(5)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let object = take(type) { return object }
            if isClosed { throw Timeout(description: "connection closed while waiting for \(type ?? "a frame")") }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Timeout(description: "no \(type ?? "frame") within \(timeout)")
    }

    /// True when no frame of `type` arrives within `window`.
    func nothing(_ type: String, within window: Duration = .milliseconds(300)) async -> Bool {
        (try? await next(type, timeout: window)) == nil
    }

    /// Waits until the server closed the connection.
    func waitClosed(timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isClosed { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Removes and returns the first queued frame of `type` (any type when nil).
    private func take(_ type: String?) -> [String: Any]? {
        let texts = inbox.received.withLock { $0 }
        for (index, text) in texts.enumerated() {
            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? ["type": "<not json>", "raw": text]
            if type == nil || object["type"] as? String == type {
                _ = inbox.received.withLock { $0.remove(at: index) }
                return object
            }
        }
        return nil
    }

    func close() {
        outgoing.finish()
        task.cancel()
    }

    deinit { task.cancel() }
}
