import Logging
import PostgresNIO

/// LISTEN on one channel over a dedicated connection (the pool cannot LISTEN), reconnecting
/// with backoff for as long as ``run()`` runs. PostgreSQL drops notifications sent while a
/// listener is away, so every (re)connection is announced as ``Event/listening`` once LISTEN
/// is active: that is the consumer's cue to re-read what it may have missed.
public final class NotificationListener: Sendable {
    public enum Event: Sendable, Equatable {
        /// LISTEN is active (first time or after a reconnect): re-read state now.
        case listening
        /// A notification's payload.
        case notification(String)
    }

    public let channel: String
    public let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let url: PostgresURL
    private let logger: Logger

    public init(url: PostgresURL, channel: String, logger: Logger) {
        self.url = url
        self.channel = channel
        self.logger = logger
        (events, sink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    /// Listens until the task is cancelled; then finishes ``events``.
    public func run() async {
        defer { sink.finish() }
        var backoff = Duration.milliseconds(100)
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1,
                                                                      logger: logger)
                if failures > 0 { logger.notice("database: LISTEN \(channel) connected again after \(failures) failed attempt(s)") }
                failures = 0
                backoff = .milliseconds(100)
                do {
                    try await connection.listen(on: channel) { notifications in
                        sink.yield(.listening)
                        for try await notification in notifications { sink.yield(.notification(notification.payload)) }
                    }
                } catch {
                    if !Task.isCancelled { logger.warning("database: LISTEN \(channel) lost: \(SharedDatabaseError.describing(error, url: url))") }
                }
                try? await connection.close()
            } catch {
                if failures == 0 { logger.warning("database: LISTEN \(channel): \(SharedDatabaseError.describing(error, url: url)); retrying") }
                failures += 1
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(2))
        }
    }
}
