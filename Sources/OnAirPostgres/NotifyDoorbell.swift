import Logging
import PostgresNIO
import Synchronization

/// NOTIFY as a doorbell, batched: ``ring(_:_:)`` keeps the newest payload per key, and one
/// statement sends at most one notification per key per flush (`pg_notify` over arrays).
/// A flush starts at once when none is in flight; rings during a flush wait for the next one.
/// NOTIFY serialises commits cluster-wide, so the table writes carry none: listeners read
/// the tables, and the bell only says where to look.
public final class NotifyDoorbell: Sendable {
    public let channel: String
    private let database: SharedDatabase
    private let state = Mutex(State())

    struct State {
        var pending: [String: String] = [:]
        var flushing = false
    }

    public init(database: SharedDatabase, channel: String) {
        self.database = database
        self.channel = channel
    }

    /// Queues `payload` under `key` (a newer ring of the same key replaces it).
    public func ring(_ key: String, _ payload: String) {
        let start = state.withLock { state -> Bool in
            state.pending[key] = payload
            guard !state.flushing else { return false }
            state.flushing = true
            return true
        }
        if start { Task { await flush() } }
    }

    /// Sends what is pending until nothing is; a failed send is logged and dropped (listeners
    /// also re-read on reconnect and on their periodic sweep).
    private func flush() async {
        while true {
            let batch = state.withLock { state -> [String] in
                let payloads = Array(state.pending.values)
                state.pending.removeAll(keepingCapacity: true)
                if payloads.isEmpty { state.flushing = false }
                return payloads
            }
            guard !batch.isEmpty else { return }
            let channel = self.channel
            do {
                try await database.withConnection { connection in
                    try await connection.query("SELECT pg_notify(\(channel), p) FROM unnest(\(batch)::text[]) AS p",
                                               logger: self.database.logger)
                }
            } catch {
                database.logger.warning("database: NOTIFY \(channel) failed: \(error)")
            }
        }
    }
}
