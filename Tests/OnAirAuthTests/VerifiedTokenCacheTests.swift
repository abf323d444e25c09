import Foundation
import Synchronization
import Testing
@testable import OnAirAuth
import OnAirTokenFormat

@Suite struct VerifiedTokenCacheTests {
    typealias F = TokenFixtures

    final class Clock: Sendable {
        let value = Mutex(F.now)
        func advance(_ seconds: Double) { value.withLock { $0 += seconds } }
        var now: Double { value.withLock { $0 } }
    }

    @Test func aCachedTokenStillExpires() async throws {
        let clock = Clock()
        let verifier = try await F.verifier(cacheCapacity: 16, clock: { clock.now })
        let token = F.hs256(F.claims(exp: F.now + 60))
        _ = try verifier.verify(token)
        #expect(verifier.cache.count == 1)
        _ = try verifier.verify(token)
        clock.advance(60 + 31)
        #expect(throws: TokenError.expired) { try verifier.verify(token) }
        #expect(verifier.cache.count == 0)
    }

    @Test func refusalsAreNotCachedAndTheCacheIsBounded() async throws {
        let verifier = try await F.verifier(cacheCapacity: 8)
        _ = try? verifier.verify(F.hs256(F.claims(exp: F.now - 100)))
        #expect(verifier.cache.count == 0)
        for i in 0..<20 {
            var claims = F.claims()
            claims["sub"] = "user-\(i)"
            _ = try verifier.verify(F.hs256(claims))
            #expect(verifier.cache.count <= 8)
        }
    }

    /// New keys (a JWKS refresh) drop what was verified with the old ones.
    @Test func aKeyChangeEmptiesTheCache() async throws {
        let verifier = try await F.verifier(withSecret: false, withJWKS: false, cacheCapacity: 8)
        let keys = try await TokenKeys.keys(fromJWKS: F.jwks).keys
        verifier.keys.replaceFetched(keys)
        let token = F.es256(F.claims())
        _ = try verifier.verify(token)
        verifier.keys.replaceFetched([:])
        #expect(throws: TokenError.noKeys) { try verifier.verify(token) }
    }

    @Test func anUnknownKidAsksForARefresh() async throws {
        let verifier = try await F.verifier(withSecret: false)
        #expect(!verifier.keys.takeRefreshWish())
        _ = try? verifier.verify(F.es256(F.claims(), kid: "new"))
        #expect(verifier.keys.takeRefreshWish())
        #expect(!verifier.keys.takeRefreshWish())
    }
}
