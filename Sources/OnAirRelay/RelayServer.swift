import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import OnAirAuth
import OnAirDTLS
import OnAirHTTP
import OnAirWire
import ServiceLifecycle

/// Wires the relay together: the media workers (``MediaWorkers``: a UDP socket, an event
/// loop and a ``RelayEngine`` each), the LL-HLS thread (``HLSService``) and the HTTP
/// signalling/API server, run as services with graceful shutdown on SIGTERM/SIGINT.
public struct RelayServer: Sendable {
    public let config: RelayConfig
    public let logger: Logger

    public init(config: RelayConfig, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    /// Runs until SIGTERM/SIGINT. `onReady` gets the bound HTTP port and each media worker's UDP port.
    public func run(onReady: @escaping @Sendable (_ httpPort: Int, _ udpPorts: [Int]) -> Void = { _, _ in }) async throws {
        // Access tokens (issue 28): the fixed keys now, a JWKS URL fetched once before the
        // first request and then in the background (JWKSRefresher), never on a request's path.
        var verifier: TokenVerifier? = nil
        var refresher: JWKSRefresher? = nil
        if config.auth.jwt.isEnabled {
            let loaded = try await TokenVerifier.loading(config.auth.jwt)
            if let url = config.auth.jwt.jwksURL {
                let service = JWKSRefresher(url: url, keys: loaded.keys, refreshSeconds: config.auth.jwt.jwksRefreshSeconds,
                                            logger: logger)
                await service.fetchOnce()
                refresher = service
            }
            verifier = loaded
            let sources = [config.auth.jwt.secret.map { _ in "HS256 secret" }, config.auth.jwt.jwksFile, config.auth.jwt.jwksURL]
            logger.info("access tokens (JWT) taken\(config.auth.jwt.required ? " and required" : ""): \(sources.compactMap { $0 }.joined(separator: ", "))")
        }

        // Webhooks (issue 5): open the outbox first, so that streams a crash left live are
        // ended (relay_shutdown) before the engine can start new ones.
        let webhooks = try await WebhookService.open(config: config.webhooks, relayID: config.http.publicURL, logger: logger)
        if let directory = config.hls.recordDirectory {
            try RecordingDirectory.prepare(directory)
            logger.info("recording every stream to \(directory)")
        }
        let workers: MediaWorkers
        let hls: HLSService
        do {
            let certificate = try DTLSCertificate.generateECDSA(commonName: "OnAir relay", validity: .seconds(30 * 86_400))
            hls = try await HLSService.start(settings: config.hls, logger: logger)
            workers = try MediaWorkers(config: config, certificate: certificate, hls: hls, logger: logger)
            try await workers.start(lifecycleObserver: webhooks.observer)  // webhooks: before any session can connect
        } catch {
            // A start that fails (a media port taken) ends with its error, not with the webhook
            // client's "not shut down" trap.
            await webhooks.poster.shutdown()
            throw error
        }
        logger.info("media workers: \(workers.engines.count), UDP ports \(workers.udpPorts.map(String.init).joined(separator: ", "))")
        if config.turn.enabled {
            logger.info("TURN: credentials good for \(config.turn.ttlSeconds) s minted per request for \(config.turn.urls.joined(separator: ", "))")
        }

        let jwtRequired = config.auth.jwt.isEnabled && config.auth.jwt.required
        if config.publishToken(for: "any") == nil && config.rooms.isEmpty && !jwtRequired && !TransportAddress.isLoopback(host: config.http.host) {
            logger.warning("publishing is open to anyone who can reach \(config.http.host): set auth.publish_token or auth.jwt (required: true)")
        }

        let router = RelayRouter.build(workers: workers, config: config, logger: logger, webhooks: webhooks, verifier: verifier)
        let udpPorts = workers.udpPorts
        let app = Application(
            router: router,
            // Request head and idle timeouts (http.request_head_timeout_seconds, idle_timeout_seconds).
            server: .guarded(.init(requestHeadTimeoutSeconds: config.http.requestHeadTimeoutSeconds,
                                   idleTimeoutSeconds: config.http.idleTimeoutSeconds)) { responder in
                HTTP1Channel(responder: responder, configuration: .init(additionalChannelHandlers: [
                    HLSFastPathHandler(hls: hls, cors: RelayRouter.corsPolicy(config)),
                ]))
            },
            configuration: .init(address: .hostname(config.http.host, port: config.http.port), serverName: "OnAir"),
            onServerRunning: { channel in
                onReady(channel.localAddress?.port ?? 0, udpPorts)
            },
            logger: logger
        )
        let media = MediaPlaneService(workers: workers, logger: logger)
        // webhooks first: shut down last, after the media plane has ended every stream.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: webhooks), .init(service: media), .init(service: app)]
        if let refresher { services.append(.init(service: refresher)) }
        let group = ServiceGroup(configuration: .init(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}

/// Keeps the media plane alive until graceful shutdown, then ends every stream (with reason
/// `relay_shutdown`) and closes the sockets.
struct MediaPlaneService: Service {
    let workers: MediaWorkers
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.info("shutting down: ending all sessions")
        await workers.shutdown()
        await workers.hls.stop()  // the streams just ended: their recordings are closed after this
        await workers.close()
    }
}
