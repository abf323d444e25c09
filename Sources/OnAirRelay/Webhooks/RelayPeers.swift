import Logging
import OnAirPostgres

/// The relays sharing one PostgreSQL database, as this relay's webhook side sees them: a
/// doorbell (NOTIFY `onair_relay`, payload `w <subscription id>`) that wakes the lane of
/// whichever relay holds a subscription when another relay queued deliveries for it.
final class RelayPeers: Sendable {
    static let channel = "onair_relay"
    private let doorbell: NotifyDoorbell
    private let listener: NotificationListener
    private let logger: Logger

    init(database: SharedDatabase, logger: Logger) {
        doorbell = NotifyDoorbell(database: database, channel: Self.channel)
        listener = NotificationListener(url: database.url, channel: Self.channel, logger: logger)
        self.logger = logger
    }

    func announce(_ subscriptionIDs: [String]) {
        for id in subscriptionIDs { doorbell.ring(id, "w \(id)") }
    }

    /// Listens until cancelled, waking `dispatcher`'s lanes.
    func run(waking dispatcher: WebhookDispatcher) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listener.run() }
            for await event in listener.events {
                switch event {
                case .listening:
                    await dispatcher.wakeAll()
                case .notification(let payload):
                    guard payload.hasPrefix("w "), payload.count > 2 else {
                        logger.warning("webhooks: ignored a malformed notification \(payload.prefix(80))")
                        continue
                    }
                    await dispatcher.wakeFromPeer([String(payload.dropFirst(2))])
                }
            }
        }
    }
}
