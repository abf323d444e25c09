import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// Fetches `auth.jwt.jwks_url` (RFC 7517 §5) in the background and swaps the keys in the
/// ``TokenKeyStore``: at start, every `jwks_refresh_seconds`, and soon after a token names a
/// `kid` we do not have (key rotation: the backend publishes a new key, then signs with it).
/// Never on a request's path: a request with an unknown `kid` is refused now, a retry after
/// the fetch succeeds. A failed fetch keeps the keys we had.
public struct JWKSRefresher: Service {
    public let url: String
    public let keys: TokenKeyStore
    public let interval: Duration
    /// The soonest a fetch follows another when an unknown `kid` asks for one.
    public let unknownKeyIDDelay: Duration
    let client: HTTPClient
    let logger: Logger

    public init(url: String, keys: TokenKeyStore, refreshSeconds: Double, logger: Logger, client: HTTPClient = .shared) {
        self.url = url
        self.keys = keys
        self.interval = .milliseconds(Int64(refreshSeconds * 1000))
        self.unknownKeyIDDelay = min(.milliseconds(Int64(refreshSeconds * 1000)), .seconds(1))
        self.client = client
        self.logger = logger
    }

    /// One fetch; true when the keys were replaced. Used at start so that the first requests find keys.
    @discardableResult
    public func fetchOnce(timeout: Duration = .seconds(5)) async -> Bool {
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
            let response = try await client.execute(request, timeout: .milliseconds(timeout.milliseconds))
            guard response.status == .ok else {
                logger.warning("JWKS \(url) answered \(response.status.code); keeping the keys we have")
                return false
            }
            let body = try await response.body.collect(upTo: 1 << 20)
            let (found, skipped) = try await TokenKeys.keys(fromJWKS: Array(body.readableBytesView))
            for reason in skipped { logger.warning("JWKS \(url): skipped \(reason)") }
            if Set(found.keys) != Set(keys.fetchedKeyIDs) {
                logger.info("JWKS \(url): keys \(found.keys.sorted().joined(separator: ", "))")
            }
            keys.replaceFetched(found)
            return true
        } catch {
            logger.warning("JWKS \(url) not fetched (\(error)); keeping the keys we have")
            return false
        }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            let clock = ContinuousClock()
            var last = clock.now
            var succeeded = await fetchOnce()
            while !Task.isCancelled {
                do { try await Task.sleep(for: .milliseconds(100)) } catch { return }
                let since = clock.now - last
                let due = since >= (succeeded ? interval : min(interval, .seconds(5)))
                let wished = since >= unknownKeyIDDelay && keys.takeRefreshWish()
                if due || wished {
                    last = clock.now
                    succeeded = await fetchOnce()
                }
            }
        }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
