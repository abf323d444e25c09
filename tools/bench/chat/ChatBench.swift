import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// Fan-out benchmark of the chat sidecar: the real `chat` binary in a child process, one
/// room, N WebSocket receivers and one sender, all from this process (raw NIO clients).
/// Prints deliveries per second, deliveries per CPU-second of the chat process ("per
/// core"), and delivery latency percentiles (sender's write to receiver's read, one
/// monotonic clock).
@main
struct ChatBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat-bench",
                                                    abstract: "One chat room, N WebSocket clients: deliveries/s per core and latency.")

    @Option(help: "Receiver counts, comma separated.")
    var clients = "1000,5000"

    @Option(help: "Target deliveries per second, comma separated (messages/s = target / clients).")
    var targets = "100000"

    @Option(help: "Seconds of sending per run.")
    var duration = 10.0

    @Option(help: "The chat binary (default: `chat` next to this program).")
    var chatBin: String?

    @Option(help: "Event loop threads of the load generator.")
    var clientThreads = 1

    @Option(help: "Chat nodes sharing one PostgreSQL database (--database); receivers are spread over them, the sender is on the first.")
    var nodes = 1

    @Option(help: "A postgres:// URL for the nodes (default: a fresh SQLite file, one node).")
    var database: String?

    func run() async throws {
        let binary = chatBin ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chat").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw BenchError("no chat binary at \(binary) (--chat-bin)") }
        let counts = clients.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let goals = targets.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard nodes == 1 || database != nil else { throw BenchError("--nodes above 1 needs --database postgres://...") }
        print("chat-bench: \(binary), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(clientThreads) generator thread(s), \(duration) s per run, \(nodes) node(s) on \(database.map { _ in "PostgreSQL" } ?? "SQLite")")
        print(Row.header)
        for count in counts {
            for goal in goals {
                let run = BenchRun(binary: binary, receivers: count, messagesPerSecond: goal / Double(count),
                                   duration: duration, clientThreads: clientThreads, nodes: nodes, database: database)
                print(try await run.execute().line)
            }
        }
    }
}

/// The figures of one run.
struct Row {
    var receivers: Int
    var messagesPerSecond: Double
    var sent: Int
    var delivered: UInt64
    var wallSeconds: Double
    var cpuSeconds: Double
    var histogram: LatencyHistogram
    var droppedClients: Int
    /// Receivers on other nodes than the sender's (nil with one node).
    var crossNode: LatencyHistogram?

    static let header = "clients  msg/s    sent  delivered     lost  deliveries/s  chat CPU s  CPU%  deliveries/CPU-s  p50 ms  p99 ms  max ms  dropped  x-node p50  x-node p99"

    var line: String {
        let expected = UInt64(sent) * UInt64(receivers)
        let lost = expected > delivered ? expected - delivered : 0
        func f(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
        let columns: [(String, Int)] = [
            (String(receivers), 7), (f(messagesPerSecond, 1), 6), (String(sent), 7), (String(delivered), 10), (String(lost), 8),
            (f(Double(delivered) / wallSeconds, 0), 13), (f(cpuSeconds, 2), 11), (f(100 * cpuSeconds / wallSeconds, 0), 5),
            (f(Double(delivered) / cpuSeconds, 0), 17), (f(histogram.percentileMS(0.5), 2), 7), (f(histogram.percentileMS(0.99), 2), 7),
            (f(Double(histogram.maxNanos) / 1e6, 1), 7), (String(droppedClients), 8),
            (crossNode.map { f($0.percentileMS(0.5), 2) } ?? "-", 11), (crossNode.map { f($0.percentileMS(0.99), 2) } ?? "-", 11),
        ]
        return columns.map { String(repeating: " ", count: max(0, $0.1 - $0.0.count)) + $0.0 }.joined(separator: " ")
    }
}
