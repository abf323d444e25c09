import Foundation
import NIOCore
import NIOPosix

/// One measured run: fresh chat processes (`nodes` of them on one PostgreSQL database, or one
/// on SQLite), `receivers` clients joined to room `bench` spread over the nodes, one sender on
/// the first node at `messagesPerSecond` for `duration` seconds, then a drain of up to 5 s.
/// CPU is the sum over the nodes; latencies of receivers on other nodes are also kept apart.
struct BenchRun {
    let binary: String
    let receivers: Int
    let messagesPerSecond: Double
    let duration: Double
    let clientThreads: Int
    var nodes = 1
    var database: String?

    /// The sender's counters (only touched on the sender's event loop).
    final class SenderState: @unchecked Sendable {
        // Only read and written on the sender's event loop.
        var sequence = 0
        var credit = 0.0
    }

    func execute() async throws -> Row {
        var chats: [ChatProcess] = []
        defer { for chat in chats { chat.stop() } }
        for _ in 0..<nodes {
            let chat = try ChatProcess(binary: binary, port: ChatProcess.freePort(), database: database)
            chats.append(chat)
            try chat.waitListening()
        }
        let chat = chats[0]
        let group = MultiThreadedEventLoopGroup(numberOfThreads: clientThreads)
        let loops = Array(group.makeIterator())
        // stats[node][loop]: each loop's receivers of one node.
        let statsByNode = chats.map { _ in loops.map { _ in LoopStats() } }
        var channels: [any Channel] = []
        do {
            // Receivers, 200 connecting at a time, node by node in turn.
            var next = 0
            while next < receivers {
                var joins: [EventLoopFuture<Void>] = []
                for i in next..<min(receivers, next + 200) {
                    let node = i % nodes
                    let loop = (i / nodes) % loops.count
                    let (channel, joined) = try await connect(port: chats[node].port, name: "r\(i)", loop: loops[loop],
                                                              stats: statsByNode[node][loop])
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

            let stats = statsByNode.flatMap { $0 }
            let loopOf = statsByNode.flatMap { _ in loops }
            for (loop, stat) in zip(loopOf, stats) {
                try await loop.submit {
                    stat.histogram = LatencyHistogram()
                    stat.deliveries = 0
                    stat.closedEarly = 0
                    stat.recording = true
                }.get()
            }
            let cpuStart = chats.map { $0.cpuSeconds() }.reduce(0, +)
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
                for (loop, stat) in zip(loopOf, stats) { delivered += try await loop.submit { stat.deliveries }.get() }
            } while delivered < expected && Date() < drainDeadline
            let cpu = chats.map { $0.cpuSeconds() }.reduce(0, +) - cpuStart
            var histogram = LatencyHistogram()
            var crossNode = LatencyHistogram()
            var dropped = 0
            for (index, (loop, stat)) in zip(loopOf, stats).enumerated() {
                let (h, d) = try await loop.submit { () -> (LatencyHistogram, Int) in
                    stat.recording = false
                    return (stat.histogram, stat.closedEarly)
                }.get()
                histogram.merge(h)
                if index >= loops.count { crossNode.merge(h) }  // nodes after the sender's
                dropped += d
            }
            for channel in channels { channel.close(promise: nil) }
            try await group.shutdownGracefully()
            return Row(receivers: receivers, messagesPerSecond: messagesPerSecond, sent: sent, delivered: delivered,
                       wallSeconds: sendSeconds, cpuSeconds: cpu, histogram: histogram, droppedClients: dropped,
                       crossNode: nodes > 1 ? crossNode : nil)
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
