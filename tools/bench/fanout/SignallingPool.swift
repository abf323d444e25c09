import Dispatch
import Synchronization

/// Runs blocking WHIP/WHEP POSTs on a few background threads so that the media loop keeps
/// its timing (a Pion answer waits for ICE gathering). Results are collected by the loop.
final class SignallingPool: Sendable {
    struct Result: Sendable {
        /// The caller's tag (viewer index).
        var tag: Int
        var outcome: Swift.Result<HTTPClient.Response, BenchError>
    }

    private let client: HTTPClient
    private let queue = DispatchQueue(label: "fanout-bench.signalling", attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let finished = Mutex<[Result]>([])

    init(client: HTTPClient, concurrency: Int) {
        self.client = client
        self.slots = DispatchSemaphore(value: concurrency)
    }

    /// Queues `POST path` with an SDP offer.
    func post(path: String, offer: String, tag: Int) {
        let client = client
        let slots = slots
        queue.async { [self] in
            slots.wait()
            defer { slots.signal() }
            let outcome: Swift.Result<HTTPClient.Response, BenchError>
            do {
                outcome = .success(try client.request("POST", path: path, contentType: "application/sdp", body: offer))
            } catch let error as BenchError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(BenchError("\(error)"))
            }
            finished.withLock { $0.append(Result(tag: tag, outcome: outcome)) }
        }
    }

    /// Everything that finished since the last call.
    func takeFinished() -> [Result] {
        finished.withLock { results in
            defer { results.removeAll(keepingCapacity: true) }
            return results
        }
    }
}
