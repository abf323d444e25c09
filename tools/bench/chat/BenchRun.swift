import Foundation
import NIOCore
import NIOPosix

/// One measured run: a fresh chat process, `receivers` clients joined to room `bench`, one
/// sender at `messagesPerSecond` for `duration` seconds, then a drain of up to 5 s.
struct BenchRun {
    let binary: String
    let receivers: Int
    let messagesPerSecond: Double
    let duration: Double
    let clientThreads: Int

    /// The sender's counters (only touched on the sender's event loop).
    final class SenderState: @unchecked Sendable {
        // Only read and written on the sender's event loop.
        var sequence = 0
        var credit = 0.0
    }

    func execute() async throws -> Row {
        let chat = try ChatProcess(binary: binary, port: ChatProcess.freePort())
        defer { chat.stop() }
        try chat.waitListening()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: clientThreads)
        let loops = Array(group.makeIterator())
        let stats = loops.map { _ in LoopStats() }
        var channels: [any Channel] = []
        do {
            // Receivers, 200 connecting at a time.
            var next = 0
            while next < receivers {
                var joins: [EventLoopFuture<Void>] = []
                for i in next..<min(receivers, next + 200) {
                    let (channel, joined) = try await connect(port: chat.port, name: "r\(i)", loop: loops[i % loops.count],
                                                              stats: stats[i % loops.count])
                    channels.append(channel)
                    joins.append(joined)
                }
                for join in joins { try await join.get() }
                next += 200
            }
            let senderLoop = loops[0]
            let senderStats = LoopStats()
            let senderHandler = BenchClient(path: "/rooms/bench/ws", port: chat.port, name: "sender", stats: senderStats,
                                            joined: senderLoop.makePromise())
            let sender = try await ClientBootstrap(group: senderLoop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(BenchWebSocket.Decoder()))
                        try channel.pipeline.syncOperations.addHandler(senderHandler)
                    }
                }
                .connect(host: "127.0.0.1", port: chat.port).get()
            channels.append(sender)
            try await senderHandler.joined.futureResult.get()
            try await Task.sleep(for: .seconds(2)) // presence batches of the joins go out

            for (loop, stat) in zip(loops, stats) {
                try await loop.submit {
                    stat.histogram = LatencyHistogram()
                    stat.deliveries = 0
                    stat.closedEarly = 0
                    stat.recording = true
                }.get()
            }
            let cpuStart = chat.cpuSeconds()
            let start = Date()
            let state = SenderState()
            let perTick = messagesPerSecond * 0.005
            let ticker = senderLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(5)) { _ in
                state.credit += perTick
                let count = Int(state.credit)
                state.credit -= Double(count)
                guard count > 0 else { return }
                var batch: [String] = []
                for _ in 0..<count {
                    state.sequence += 1
                    batch.append(#"{"type":"send","text":"b:\#(state.sequence):\#(NIODeadline.now().uptimeNanoseconds)"}"#)
                }
                senderHandler.send(batch: batch)
            }
            try await Task.sleep(for: .seconds(duration))
            let sent = try await senderLoop.submit { () -> Int in
                ticker.cancel()
                return state.sequence
            }.get()
            let sendSeconds = Date().timeIntervalSince(start)
            // Drain: until every delivery arrived or 5 s passed.
            let expected = UInt64(sent) * UInt64(receivers)
            let drainDeadline = Date().addingTimeInterval(5)
            var delivered: UInt64 = 0
            repeat {
                try await Task.sleep(for: .milliseconds(50))
                delivered = 0
                for (loop, stat) in zip(loops, stats) { delivered += try await loop.submit { stat.deliveries }.get() }
            } while delivered < expected && Date() < drainDeadline
            let cpu = chat.cpuSeconds() - cpuStart
            var histogram = LatencyHistogram()
            var dropped = 0
            for (loop, stat) in zip(loops, stats) {
                let (h, d) = try await loop.submit { () -> (LatencyHistogram, Int) in
                    stat.recording = false
                    return (stat.histogram, stat.closedEarly)
                }.get()
                histogram.merge(h)
                dropped += d
            }
            for channel in channels { channel.close(promise: nil) }
            try await group.shutdownGracefully()
            return Row(receivers: receivers, messagesPerSecond: messagesPerSecond, sent: sent, delivered: delivered,
                       wallSeconds: sendSeconds, cpuSeconds: cpu, histogram: histogram, droppedClients: dropped)
        } catch {
            for channel in channels { channel.close(promise: nil) }
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private func connect(port: Int, name: String, loop: any EventLoop, stats: LoopStats) async throws
        -> (any Channel, EventLoopFuture<Void>)
    {
        let joined = loop.makePromise(of: Void.self)
        let handler = BenchClient(path: "/rooms/bench/ws", port: port, name: name, stats: stats, joined: joined)
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(BenchWebSocket.Decoder()))
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return (channel, joined.futureResult)
    }
}
