import Crypto
import Foundation
import Testing
@testable import OnAirAuth
import OnAirTokenFormat

/// Every refusal the issue names, and the acceptances around them (RFC 7519 §7.2, RFC 8725).
@Suite struct TokenVerifierTests {
    typealias F = TokenFixtures

    @Test func acceptsHS256AndES256() async throws {
        let verifier = try await F.verifier()
        let hs = try verifier.verify(F.hs256(F.claims()))
        #expect(hs.subject == "ada" && hs.name == "Ada" && hs.room == .exact("42") && hs.grants == [.publish, .view])
        let es = try verifier.verify(F.es256(F.claims(grants: [.chat])))
        #expect(es.grants == [.chat])
        #expect(es.allows(.chat, in: "42") && !es.allows(.chat, in: "4") && !es.allows(.view, in: "42"))
    }

    /// EdDSA (RFC 8037) from a JWKS whose key has no `alg`: the OKP/Ed25519 key implies it.
    @Test func acceptsEdDSAFromAJWKS() async throws {
        let key = Curve25519.Signing.PrivateKey()
        let jwk: [String: Any] = ["kty": "OKP", "crv": "Ed25519", "kid": "ed-1", "x": Base64URL.encode(Array(key.publicKey.rawRepresentation))]
        let jwks = Array(try JSONSerialization.data(withJSONObject: ["keys": [jwk]]))
        let keys = try await TokenKeys.keys(fromJWKS: jwks)
        #expect(keys.keys["ed-1"]?.algorithm == "EdDSA" && keys.skipped.isEmpty)
        let verifier = TokenVerifier(settings: JWTSettings(), keys: TokenKeyStore(fixed: TokenKeys(byKeyID: keys.keys)), cacheCapacity: 0,
                                     clock: { F.now })
        let input = F.part(["alg": "EdDSA", "kid": "ed-1"]) + "." + F.part(F.claims(grants: [.view]))
        let token = input + "." + Base64URL.encode(Array(try key.signature(for: Array(input.utf8))))
        #expect(try verifier.verify(token).grants == [.view])
        // The same key named as ES256: refused before any signature check.
        let lying = F.part(["alg": "ES256", "kid": "ed-1"]) + "." + F.part(F.claims()) + "." + Base64URL.encode([1, 2, 3])
        #expect(throws: TokenError.algorithmNotAllowed("the token says ES256 but its key 'ed-1' is EdDSA")) { try verifier.verify(lying) }
    }

    @Test func jwksSkipsWhatItCannotUse() async throws {
        let jwks = #"{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"},{"kty":"oct","kid":"h","k":"c2VjcmV0"}]}"#
        do {
            let found = try await TokenKeys.keys(fromJWKS: Array(jwks.utf8))
            #expect(found.keys.isEmpty && !found.skipped.isEmpty)
        } catch {
            // jwt-kit refuses a key type it does not know as a whole document: also not taken.
        }
    }

    @Test func refusesAlgNone() async throws {
        let verifier = try await F.verifier()
        let unsigned = F.part(["alg": "none", "typ": "JWT"]) + "." + F.part(F.claims()) + "."
        #expect(throws: TokenError.self) { try verifier.verify(unsigned) }
        do { _ = try verifier.verify(unsigned) } catch { #expect(error.code == "alg_not_allowed") }
        let noneUpper = F.part(["alg": "NONE"]) + "." + F.part(F.claims()) + "."
        do { _ = try verifier.verify(noneUpper) } catch { #expect(error.code == "alg_not_allowed") }
    }

    /// RFC 8725 §2.1: an HS256 token "signed" with the ES256 public key's text, naming that key.
    @Test func refusesAlgorithmConfusion() async throws {
        for withSecret in [true, false] {
            let verifier = try await F.verifier(withSecret: withSecret)
            let forged = F.hs256(F.claims(), key: F.publicKeyPEM, header: ["alg": "HS256", "kid": F.ecKid])
            #expect(throws: TokenError.algorithmNotAllowed("the token says HS256 but its key 'ec-1' is ES256")) { try verifier.verify(forged) }
            // Without a kid, against a JWKS-only verifier: no HS256 key at all.
            let noKid = F.hs256(F.claims(), key: F.publicKeyPEM)
            do { _ = try verifier.verify(noKid); Issue.record("accepted") } catch {
                #expect(withSecret ? error == .badSignature : error.code == "alg_not_allowed")
            }
        }
        // An ES256 header on a token MACed with the secret: the key is the secret's, HS256.
        let verifier = try await F.verifier(withJWKS: false)
        let mixed = F.hs256(F.claims(), header: ["alg": "ES256"])
        do { _ = try verifier.verify(mixed); Issue.record("accepted") } catch { #expect(error.code == "unknown_kid" || error.code == "alg_not_allowed") }
    }

    @Test func refusesAlgorithmsOffTheList() async throws {
        let verifier = try await F.verifier()
        let hs512 = F.hs256(F.claims(), header: ["alg": "HS512"])
        #expect(throws: TokenError.algorithmNotAllowed("'HS512' (this server takes ES256, EdDSA, HS256, RS256)")) { try verifier.verify(hs512) }
    }

    @Test func roomPatterns() async throws {
        let verifier = try await F.verifier()
        let four = try verifier.verify(F.hs256(F.claims(room: "4")))
        #expect(!four.allows(.view, in: "42") && four.allows(.view, in: "4"))
        let team = try verifier.verify(F.hs256(F.claims(room: "team-*")))
        #expect(team.allows(.view, in: "team-a") && !team.allows(.view, in: "42"))
        let all = try verifier.verify(F.hs256(F.claims(room: "*")))
        #expect(all.allows(.publish, in: "anything"))
        let none = try verifier.verify(F.hs256(F.claims(room: nil, grants: [.admin])))
        #expect(none.allows(.admin, in: nil) && !none.allows(.view, in: "42"))
        #expect(throws: TokenError.malformed("room 'a*b' is not a room id, '*' or a prefix ending in '*'")) {
            try verifier.verify(F.hs256(F.claims(room: "a*b")))
        }
        #expect(RoomPattern("*x*") == nil && RoomPattern("") == nil && RoomPattern("x*")?.description == "x*")
    }

    @Test func timeClaims() async throws {
        let verifier = try await F.verifier()
        #expect(throws: TokenError.expired) { try verifier.verify(F.hs256(F.claims(exp: F.now - 31))) }
        _ = try verifier.verify(F.hs256(F.claims(exp: F.now - 29)))  // within the 30 s leeway
        #expect(throws: TokenError.missingExpiry) { try verifier.verify(F.hs256(F.claims(exp: nil))) }
        #expect(throws: TokenError.notYetValid) { try verifier.verify(F.hs256(F.claims(nbf: F.now + 60))) }
        _ = try verifier.verify(F.hs256(F.claims(nbf: F.now + 20)))
        #expect(throws: TokenError.notYetValid) { try verifier.verify(F.hs256(F.claims(iat: F.now + 3600))) }
    }

    @Test func audienceAndIssuer() async throws {
        let verifier = try await F.verifier { $0.audience = "onair"; $0.issuer = "https://app.example" }
        _ = try verifier.verify(F.hs256(F.claims(aud: ["other", "onair"], iss: "https://app.example")))
        _ = try verifier.verify(F.hs256(F.claims(aud: ["onair"], iss: "https://app.example")))
        #expect(throws: TokenError.wrongAudience) { try verifier.verify(F.hs256(F.claims(aud: ["other"], iss: "https://app.example"))) }
        #expect(throws: TokenError.wrongAudience) { try verifier.verify(F.hs256(F.claims(iss: "https://app.example"))) }
        #expect(throws: TokenError.wrongIssuer) { try verifier.verify(F.hs256(F.claims(aud: ["onair"], iss: "https://evil.example"))) }
        // Not configured: not checked.
        _ = try await F.verifier().verify(F.hs256(F.claims(aud: ["whatever"], iss: "anyone")))
    }

    @Test func unknownKeyIDAndTamperedSignature() async throws {
        let verifier = try await F.verifier(withSecret: false)
        #expect(throws: TokenError.unknownKeyID("ec-2")) { try verifier.verify(F.es256(F.claims(), kid: "ec-2")) }
        let token = F.es256(F.claims())
        var parts = token.split(separator: ".").map(String.init)
        // Another payload under the same signature.
        parts[1] = F.part(F.claims(grants: [.admin]))
        #expect(throws: TokenError.badSignature) { try verifier.verify(parts.joined(separator: ".")) }
        // One signature byte flipped.
        var signature = Base64URL.decode(Array(token.split(separator: ".")[2].utf8))!
        signature[10] ^= 1
        let flipped = token.split(separator: ".")[0...1].joined(separator: ".") + "." + Base64URL.encode(signature)
        #expect(throws: TokenError.badSignature) { try verifier.verify(flipped) }
        let hsVerifier = try await F.verifier()
        #expect(throws: TokenError.badSignature) { try hsVerifier.verify(F.hs256(F.claims(), key: "another-secret-that-is-32-bytes-long")) }
    }

    @Test func malformedTokens() async throws {
        let verifier = try await F.verifier()
        for bad in ["", "abc", "a.b", "a.b.c.d", "!!.e30.", F.part(["alg": "HS256"]) + ".bm90IGpzb24." + "AA"] {
            do { _ = try verifier.verify(bad); Issue.record("accepted \(bad)") } catch {
                #expect(error.code == "malformed" || error.code == "bad_signature", "\(bad): \(error)")
            }
        }
        #expect(throws: TokenError.malformed("sub (the user id) is missing")) {
            var claims = F.claims(); claims["sub"] = nil
            return try verifier.verify(F.hs256(claims))
        }
        #expect(throws: TokenError.malformed("grants must be an array of strings")) {
            var claims = F.claims(); claims["grants"] = "view"
            return try verifier.verify(F.hs256(claims))
        }
        let crit = F.hs256(F.claims(), header: ["alg": "HS256", "crit": ["b64"], "b64": false])
        do { _ = try verifier.verify(crit); Issue.record("accepted crit") } catch { #expect(error.code == "malformed") }
    }

    @Test func unknownGrantsAreDropped() async throws {
        var claims = F.claims()
        claims["grants"] = ["view", "fly"]
        #expect(try await F.verifier().verify(F.hs256(claims)).grants == [.view])
    }

    @Test func noKeysYet() async throws {
        let verifier = try await F.verifier(withSecret: false, withJWKS: false)
        #expect(throws: TokenError.noKeys) { try verifier.verify(F.es256(F.claims())) }
    }
}
