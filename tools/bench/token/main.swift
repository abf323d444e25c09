// token-bench (issue 28): µs per access-token verification, HS256 and ES256, cold (every
// verification checks the signature: the cache is off) and cached (a token seen before),
// beside jwt-kit's own JWTKeyCollection.verify and the bare P-256 verify of swift-crypto.
// Times are the process's CPU time (other programs on the cores do not count), median of rounds.
// Run: swift build -c release --product token-bench && .build/release/token-bench
import ArgumentParser
import BenchSupport
import Crypto
import Foundation
import JWTKit
import OnAirAuth
import OnAirTokenFormat

@main
struct TokenBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token-bench",
                                                    abstract: "µs per access-token verification (HS256, ES256; cold and cached).")

    @Option(help: "Verifications per round (ES256 rounds do a fifth of this).")
    var iterations = 20_000

    @Option(help: "Rounds per figure; the median round is printed.")
    var rounds = 5

    @Option(help: "Only the rows whose name starts with this (for profiling one path).")
    var only: String?

    func run() async throws {
        let secret = "bench-secret-that-is-at-least-32-bytes"
        let now = Date().timeIntervalSince1970
        let claims = TokenMinter.claims(identity: "ada", name: "Ada", room: "42", grants: [.view, .chat], ttl: 3600, now: now)
        let hsToken = try await TokenMinter(secret: secret).mint(claims)
        let ecKey = ES256PrivateKey()
        let esToken = try await TokenMinter(es256: ecKey, kid: "ec-1").mint(claims)

        var settings = JWTSettings()
        settings.secret = secret
        var keys = TokenKeys(secret: await TokenKeys.hs256(secret: secret))
        let p256 = try P256.Signing.PrivateKey(pemRepresentation: ecKey.pemRepresentation)
        let raw = Array(p256.publicKey.rawRepresentation)
        let jwk = #"{"keys":[{"kty":"EC","crv":"P-256","kid":"ec-1","alg":"ES256","x":"\#(Base64URL.encode(raw[0..<32]))","y":"\#(Base64URL.encode(raw[32..<64]))"}]}"#
        keys.byKeyID = try await TokenKeys.keys(fromJWKS: Array(jwk.utf8)).keys
        let store = TokenKeyStore(fixed: keys)
        let cold = TokenVerifier(settings: settings, keys: store, cacheCapacity: 0)
        let cached = TokenVerifier(settings: settings, keys: store, cacheCapacity: 4096)

        let jwtKit = JWTKeyCollection()
        await jwtKit.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "hs")
        await jwtKit.add(ecdsa: try ES256PublicKey(pem: p256.publicKey.pemRepresentation), kid: "ec-1")

        let parts = esToken.split(separator: ".")
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(Array(parts[2].utf8))!)
        let publicKey = p256.publicKey

        let n = iterations, ecN = max(1, iterations / 5)
        print("token-bench: \(rounds) rounds, median; HS256 \(n) and ES256 \(ecN) verifications a round")
        print(String(repeating: "-", count: 64))
        if wanted("HS256 cold (OnAirAuth, cache off)") { row("HS256 cold (OnAirAuth, cache off)", try measure(n) { _ = try cold.verify(hsToken) }) }
        if wanted("HS256 cached (OnAirAuth)") { row("HS256 cached (OnAirAuth)", try measure(n) { _ = try cached.verify(hsToken) }) }
        if wanted("HS256 jwt-kit JWTKeyCollection.verify") { row("HS256 jwt-kit JWTKeyCollection.verify", try await measureAsync(n) { _ = try await jwtKit.verify(hsToken, as: TokenMinterPayload.self) }) }
        if wanted("ES256 cold (OnAirAuth, cache off)") { row("ES256 cold (OnAirAuth, cache off)", try measure(ecN) { _ = try cold.verify(esToken) }) }
        if wanted("ES256 cached (OnAirAuth)") { row("ES256 cached (OnAirAuth)", try measure(ecN) { _ = try cached.verify(esToken) }) }
        if wanted("ES256 jwt-kit JWTKeyCollection.verify") { row("ES256 jwt-kit JWTKeyCollection.verify", try await measureAsync(ecN) { _ = try await jwtKit.verify(esToken, as: TokenMinterPayload.self) }) }
        if wanted("P-256 verify alone (swift-crypto, SHA-256 + ECDSA)") { row("P-256 verify alone (swift-crypto, SHA-256 + ECDSA)", try measure(ecN) {
            guard publicKey.isValidSignature(signature, for: input) else { throw BenchFailure() }
        }) }
    }

    struct BenchFailure: Error {}

    func wanted(_ name: String) -> Bool { only.map { name.hasPrefix($0) } ?? true }

    func row(_ name: String, _ microseconds: Double) {
        print(name.padding(toLength: 52, withPad: " ", startingAt: 0) + String(format: "%9.2f µs", microseconds))
    }

    /// Median over the rounds of µs per call.
    func measure(_ count: Int, _ body: () throws -> Void) throws -> Double {
        for _ in 0..<min(count, 200) { try body() }  // warm up
        var figures: [Double] = []
        for _ in 0..<rounds {
            let start = BenchClock.processCPU()
            for _ in 0..<count { try body() }
            figures.append(Double(BenchClock.processCPU() - start) / 1000 / Double(count))
        }
        return Percentiles(figures).at(50)
    }

    func measureAsync(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
        for _ in 0..<min(count, 200) { try await body() }
        var figures: [Double] = []
        for _ in 0..<rounds {
            let start = BenchClock.processCPU()
            for _ in 0..<count { try await body() }
            figures.append(Double(BenchClock.processCPU() - start) / 1000 / Double(count))
        }
        return Percentiles(figures).at(50)
    }
}

/// The claims as jwt-kit's own verify decodes them (with its exp check), for the comparison row.
struct TokenMinterPayload: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var room: String?
    var grants: [String]
    func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
}
