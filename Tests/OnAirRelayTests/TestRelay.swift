import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import OnAirAuth
import OnAirDTLS
import Testing
@testable import OnAirRelay

/// A real relay in the test process, wired like ``RelayServer/run(onReady:)``: a DTLS
/// certificate, the UDP media socket on 127.0.0.1 (or the configured `media.bind`) port 0, the ``RelayEngine`` on a NIO event
/// loop with its timers, and the HTTP router. Requests go to the router's responder
/// (`.router`) or through a real HTTP server on a free port (`.live`).
final class TestRelay: Sendable {
    let config: RelayConfig
    let workers: MediaWorkers
    let certificate: DTLSCertificate
    let logger: Logger
    /// The access-token verifier when the config's `auth.jwt` sets a key.
    let verifier: TokenVerifier?

    /// The first worker's engine (every room lives there with `media.workers: 1`, the default here).
    var engine: RelayEngine { workers.engines[0] }
    var udpPort: Int { workers.udpPorts[0] }
    var tcpPort: Int { workers.tcpPorts[0] }

    private init(config: RelayConfig, workers: MediaWorkers, certificate: DTLSCertificate, logger: Logger, verifier: TokenVerifier?) {
        self.verifier = verifier
        self.config = config
        self.workers = workers
        self.certificate = certificate
        self.logger = logger
    }

    /// Starts the media plane with the defaults changed by `configure` (the UDP port is always
    /// 0; one media worker unless `configure` asks for more).
    static func start(_ configure: (inout RelayConfig) -> Void = { _ in }) async throws -> TestRelay {
        var config = RelayConfig()
        config.media.workers = 1
        configure(&config)
        config.media.udpPort = 0
        let logger = Logger(label: "relaytests", factory: { _ in SwiftLogNoOpLogHandler() })
        let certificate = try DTLSCertificate.generateECDSA(commonName: "OnAir relay tests", validity: .seconds(86_400))
        // The shared loops, not threads of their own: the suite starts relays by the hundred.
        // Several workers get threads of their own: placement reads each worker's load,
        // which on a shared loop is everyone's.
        let shared = config.media.workerCount == 1 ? MultiThreadedEventLoopGroup.singleton : nil
        let hls = try await HLSService.start(settings: config.hls, logger: logger, loop: shared?.next())
        let workers = try MediaWorkers(config: config, certificate: certificate, hls: hls, logger: logger, group: shared)
        try await workers.start(lifecycleObserver: nil)
        let verifier = config.auth.jwt.isEnabled ? try await TokenVerifier.loading(config.auth.jwt) : nil
        return TestRelay(config: config, workers: workers, certificate: certificate, logger: logger, verifier: verifier)
    }

    func stop() async {
        await workers.shutdown()
        await workers.hls.stop()
        await workers.close()
    }

    func application(port: Int = 0) -> some ApplicationProtocol {
        Application(router: RelayRouter.build(workers: workers, config: config, logger: logger, verifier: verifier),
                    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "OnAir"),
                    logger: logger)
    }
}

/// Runs `body` with a fresh relay (configured by `configure`) and a client for its HTTP
/// surface; the relay is stopped afterwards, also when `body` throws.
func withRelay(_ configure: (inout RelayConfig) -> Void = { _ in }, setup: TestingSetup = .router,
               _ body: @escaping @Sendable (TestRelay, any TestClientProtocol) async throws -> Void) async throws {
    let relay = try await TestRelay.start(configure)
    do {
        try await relay.application().test(setup) { client in try await body(relay, client) }
    } catch {
        await relay.stop()
        throw error
    }
    await relay.stop()
}
