import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import OnAirAuth
import OnAirHTTP
import OnAirPostgres
import ServiceLifecycle

/// Wires the chat sidecar together: the store, the room directory (a service owning every
/// room's worker) and the HTTP/WebSocket server, in one ServiceGroup with graceful shutdown
/// on SIGTERM/SIGINT (connections close, queued room work finishes, the store stays whole).
public struct ChatServer: Sendable {
    public let config: ChatConfig
    public let logger: Logger
    public let clock: WallClock

    public init(config: ChatConfig, logger: Logger, clock: WallClock = .system) {
        self.config = config
        self.logger = logger
        self.clock = clock
    }

    /// Runs until SIGTERM/SIGINT. `onReady` gets the bound HTTP port. With a PostgreSQL URL,
    /// an unreachable server or a refused login ends the start with one line naming what to fix.
    public func run(onReady: @escaping @Sendable (_ port: Int) -> Void = { _ in }) async throws {
        let (verifier, tokenKeys) = try await loadTokenVerifier()
        switch try DatabaseLocation(parsing: config.database.path) {
        case .sqlite(let path):
            let app = makeApplication(store: try SQLiteChatStore(path: path), verifier: verifier, tokenKeys: tokenKeys, onReady: onReady)
            try await runServices([app])
        case .postgres(let url):
            let database = try SharedDatabase(url: url, logger: logger)
            try await database.checkReachable()
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await database.run() }
                let store = try await PostgresChatStore(database: database)
                let link = PostgresClusterLink(database: database, logger: logger)
                let app = makeApplication(store: store, cluster: link, verifier: verifier, tokenKeys: tokenKeys, onReady: onReady)
                try await runServices([app])
                group.cancelAll()
            }
        }
    }

    /// Access tokens (issue 28): the fixed keys now; a JWKS URL fetched once before the first
    /// join, then in the background (never on a join's path).
    private func loadTokenVerifier() async throws -> (TokenVerifier?, JWKSRefresher?) {
        let settings = config.auth.jwt
        guard settings.isEnabled else { return (nil, nil) }
        let verifier = try await TokenVerifier.loading(settings)
        var refresher: JWKSRefresher? = nil
        if let url = settings.jwksURL {
            let service = JWKSRefresher(url: url, keys: verifier.keys, refreshSeconds: settings.jwksRefreshSeconds, logger: logger)
            await service.fetchOnce()
            refresher = service
        }
        logger.info("access tokens (JWT) taken\(settings.required ? ", and required" : "")")
        return (verifier, refresher)
    }

    private func runServices(_ services: [any Service]) async throws {
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The application (routes + room directory service) on `store`; tests run it with
    /// HummingbirdTesting. `cluster` links it to the other nodes on a shared database.
    func makeApplication(store: any ChatStore, cluster: (any ChatClusterLink)? = nil, verifier: TokenVerifier? = nil,
                         tokenKeys: JWKSRefresher? = nil, onReady: @escaping @Sendable (_ port: Int) -> Void = { _ in })
        -> Application<RouterResponder<ChatRequestContext>>
    {
        let directory = RoomDirectory(store: store, config: config, logger: logger, clock: clock, cluster: cluster)
        let services = ChatServices(config: config, store: store, directory: directory, clock: clock, logger: logger,
                                    connectionIDs: ConnectionIDs(), access: ChatAccess(config: config, verifier: verifier))
        let webhooks = WebhookReceiver(secrets: ChatConfigLoader.secrets(of: config), directory: directory,
                                       maxBodyBytes: config.webhooks.maxBodyBytes, clock: clock, logger: logger)
        if config.webhooks.secrets.isEmpty {
            logger.warning("no webhook secret: POST /hooks/relay answers 503 and rooms never close (set ONAIR_CHAT_WEBHOOK_SECRET)")
        }
        let pruner = DeliveryPruner(store: store, keepHours: config.webhooks.dedupeHours, clock: clock, logger: logger)
        let webSocketResponder = ChatRouter.webSocket(services).buildResponder()
        let webSocket = Self.webSocketConfiguration(config.limits)
        // Request head and idle timeouts (http.request_head_timeout_seconds, idle_timeout_seconds),
        // and an answer to a first request the parser refuses (the upgrade pipeline gives none).
        let guards = HTTPConnectionGuards(requestHeadTimeoutSeconds: config.http.requestHeadTimeoutSeconds,
                                          idleTimeoutSeconds: config.http.idleTimeoutSeconds,
                                          answersFirstRequestParseErrors: true)
        return Application(
            router: ChatRouter.http(services, webhooks: webhooks),
            server: .guarded(guards) { responder in
                HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                             configuration: .init(ws: webSocket))
            },
            configuration: .init(address: .hostname(config.http.host, port: config.http.port), serverName: "OnAir-chat"),
            services: [directory, pruner] + ((cluster as? any Service).map { [$0] } ?? []) + (tokenKeys.map { [$0 as any Service] } ?? []),
            onServerRunning: { channel in onReady(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The WebSocket settings. No extension is negotiated, whatever a client offers: messages
    /// go out as finished frames written straight to the socket (``RawFrameWriter``, RSV bits
    /// clear, in order with the library's pings and closes), which an extension that transforms
    /// frames (RFC 7692 permessage-deflate, RFC 6455 §9) would have to see. Tests hold this.
    static func webSocketConfiguration(_ limits: ChatConfig.Limits) -> WebSocketServerConfiguration {
        WebSocketServerConfiguration(maxFrameSize: limits.maxFrameBytes, extensions: [],
                                     autoPing: .enabled(timePeriod: .seconds(webSocketPingSeconds)), closeTimeout: .seconds(3))
    }

    /// How often an idle WebSocket is pinged: `http.idle_timeout_seconds` must exceed it.
    static let webSocketPingSeconds: Int64 = 30
}

/// Forgets webhook ids older than `webhooks.dedupe_hours`, hourly (a replay that old fails
/// the 5-minute timestamp check anyway).
struct DeliveryPruner: Service, CustomStringConvertible {
    var description: String { "DeliveryPruner" }

    let store: any ChatStore
    let keepHours: Double
    let clock: WallClock
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {  // cancelled: the sleep below returns at once
            let cutoff = clock.milliseconds() - Int64(keepHours * 3_600_000)
            if let forgotten = try? await store.forgetDeliveries(receivedBefore: cutoff), forgotten > 0 {
                logger.debug("forgot \(forgotten) webhook ids")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
