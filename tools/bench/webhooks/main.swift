// webhooks-bench: figures for the stream lifecycle webhooks (issue 5).
//
// Drives the relay's WebhookService exactly as the engine does (WebhookLifecycleObserver
// calls), with a real SQLite outbox file, signed HTTP deliveries over keep-alive loopback
// connections, and a local receiver (Hummingbird) that verifies every signature.
//
//   1. stream.ended latency: observer.streamEnded (what a DELETE triggers, synchronously, in
//      the engine) -> verified at the receiver. Target p99 <= 500 ms.
//   2. throughput: a burst of events, 1 subscriber (strict per-subscriber order) and 4
//      subscribers (lanes in parallel). Target >= 1,000 signed deliveries/s.
//   3. latency at a paced 500 events/s, enqueue -> delivered. Target p99 <= 50 ms.
//
//   swift build -c release --product webhooks-bench && .build/release/webhooks-bench
//   options: --burst 5000 --paced-seconds 10 --rate 500 --ended-samples 300
//            --database postgres://... [--relays 2]: the outbox in PostgreSQL, shared by several
//            relays (in-process services, rooms spread over them); the database is emptied first

import Foundation
import Logging
import OnAirRelay
import OnAirWebhooks
import ServiceLifecycle

func option(_ name: String, _ fallback: Int) -> Int {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count, let v = Int(args[i + 1]) else { return fallback }
    return v
}

let burst = option("--burst", 5_000)
let pacedSeconds = option("--paced-seconds", 10)
let rate = option("--rate", 500)
let endedSamples = option("--ended-samples", 300)
if let i = CommandLine.arguments.firstIndex(of: "--database"), i + 1 < CommandLine.arguments.count {
    BenchRun.database = CommandLine.arguments[i + 1]
    BenchRun.relays = option("--relays", 2)
}

var logger = Logger(label: "webhooks-bench")
logger.logLevel = .error

let secret = WebhookSecret.generate()
let receiver = BenchReceiver(secret: secret)
let (url, receiverGroup) = try await receiver.start(logger: logger)
print("webhooks-bench: receiver \(url); outbox " + (BenchRun.database.map { _ in "in PostgreSQL shared by \(BenchRun.relays) relays" }
      ?? "in a temporary SQLite file (WAL)") + "; every signature verified")

// 1. stream.ended latency, one stream at a time (DELETEs arriving one by one).
try await BenchRun.with(url: url, secret: secret, subscribers: 1, logger: logger) { observers in
    for i in 0..<endedSamples {
        let room = "e\(i)"
        let before = receiver.received
        observers.forRoom(room).streamStarted(BenchRun.started(room))
        _ = await BenchRun.waitUntil({ receiver.received > before }, timeout: 5)
        receiver.expect("stream.ended " + room, at: Monotonic.seconds())
        observers.forRoom(room).streamEnded(BenchRun.ended(room))
        _ = await BenchRun.waitUntil({ receiver.received > before + 1 }, timeout: 5)
    }
    print("1. stream.ended, observer call -> verified at the receiver: \(LatencyStats(receiver.takeLatencies()).summary)")
}

// 2. Throughput: the whole burst is enqueued as fast as the engine could report it.
for subscribers in [1, 4] {
    try await BenchRun.with(url: url, secret: secret, subscribers: subscribers, logger: logger) { observers in
        let start = receiver.received
        let expected = burst * subscribers
        let t0 = Monotonic.seconds()
        for i in 0..<burst {
            let room = "b\(i / 2)"
            if i % 2 == 0 { observers.forRoom(room).streamStarted(BenchRun.started(room)) } else { observers.forRoom(room).streamEnded(BenchRun.ended(room)) }
        }
        let complete = await BenchRun.waitUntil({ receiver.received - start >= expected }, timeout: 120)
        let seconds = Monotonic.seconds() - t0
        let delivered = receiver.received - start
        print(String(format: "2. burst of %d events, %d subscriber(s): %d deliveries in %.2f s = %.0f signed deliveries/s%@",
                     burst, subscribers, delivered, seconds, Double(delivered) / seconds, complete ? "" : " (INCOMPLETE)"))
    }
}

// 3. Paced load: `rate` events/s for `pacedSeconds`, enqueue -> delivered latency.
try await BenchRun.with(url: url, secret: secret, subscribers: 1, logger: logger) { observers in
    _ = receiver.takeLatencies()
    let total = rate * pacedSeconds
    let start = receiver.received
    let t0 = Monotonic.seconds()
    for i in 0..<total {
        let due = t0 + Double(i) / Double(rate)
        let wait = due - Monotonic.seconds()
        if wait > 0 { try? await Task.sleep(for: .microseconds(Int64(wait * 1e6))) }
        let room = "p\(i / 2)"
        let started = i % 2 == 0
        receiver.expect((started ? "stream.started " : "stream.ended ") + room, at: Monotonic.seconds())
        if started { observers.forRoom(room).streamStarted(BenchRun.started(room)) } else { observers.forRoom(room).streamEnded(BenchRun.ended(room)) }
    }
    _ = await BenchRun.waitUntil({ receiver.received - start >= total }, timeout: 30)
    let achieved = Double(total) / (Monotonic.seconds() - t0)
    print(String(format: "3. paced %d events/s for %d s (achieved %.0f/s), enqueue -> delivered: ", rate, pacedSeconds, achieved)
          + LatencyStats(receiver.takeLatencies()).summary)
}

print("bad signatures at the receiver: \(receiver.badSignatures)")
await receiverGroup.triggerGracefulShutdown()
