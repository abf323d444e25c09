import Foundation
import JWTKit
import Testing
@testable import OnAirAuth
@testable import OnAirTokenCommand
import OnAirTokenFormat

@Suite struct TokenMinterTests {
    typealias F = TokenFixtures

    @Test func mintedTokensVerify() async throws {
        let hs = try await TokenMinter(secret: F.secret)
        let claims = TokenMinter.claims(identity: "ada", name: "Ada", room: "42", grants: [.view, .chat], ttl: 3600, now: F.now)
        let verifier = try await F.verifier()
        #expect(try verifier.verify(try await hs.mint(claims)) == claims)
        let es = await TokenMinter(es256: F.ecKey, kid: F.ecKid)
        #expect(try verifier.verify(try await es.mint(claims)).subject == "ada")
    }

    @Test func shortSecretsAreRefused() async throws {
        await #expect(throws: TokenMinter.TooShortSecret.self) { _ = try await TokenMinter(secret: "short") }
        var settings = JWTSettings()
        settings.secret = "short"
        #expect(settings.problems().first?.contains("at least 32 bytes") == true)
    }

    @Test func ttlAndGrantParsing() throws {
        #expect(TokenCreateCommand<NoConfig>.seconds("1h") == 3600)
        #expect(TokenCreateCommand<NoConfig>.seconds("30m") == 1800)
        #expect(TokenCreateCommand<NoConfig>.seconds("90") == 90)
        #expect(TokenCreateCommand<NoConfig>.seconds("soon") == nil)
        #expect(try Grant.parseList("view, chat,view") == [.view, .chat])
        #expect(throws: Grant.UnknownGrant.self) { try Grant.parseList("view,fly") }
    }

    @Test func settingsFromTheEnvironment() throws {
        var settings = JWTSettings()
        try settings.apply(environment: ["ONAIR_JWT_SECRET": F.secret, "ONAIR_JWT_REQUIRED": "true", "ONAIR_JWT_JWKS_URL": "http://127.0.0.1:1/jwks"],
                           prefix: "ONAIR_JWT_")
        #expect(settings.secret == F.secret && settings.required && settings.jwksURL == "http://127.0.0.1:1/jwks")
        #expect(settings.problems().isEmpty)
        #expect(throws: JWTSettings.SettingProblem.self) { try settings.apply(environment: ["ONAIR_JWT_REQUIRED": "maybe"], prefix: "ONAIR_JWT_") }
        var required = JWTSettings()
        required.required = true
        #expect(required.problems() == ["auth.jwt.required is true but no key is set: give secret, jwks_file or jwks_url"])
    }

    @Test func bearerChallenge() {
        #expect(BearerCredential.token(fromAuthorization: "Bearer abc") == "abc")
        #expect(BearerCredential.token(fromAuthorization: "bearer abc") == "abc")
        #expect(BearerCredential.token(fromAuthorization: "Basic abc") == nil)
        #expect(BearerCredential.challenge(realm: "onair", error: "invalid_token", description: "a \"quoted\" \\ thing")
                == #"Bearer realm="onair", error="invalid_token", error_description="a 'quoted' ' thing""#)
    }

    enum NoConfig: JWTSettingsLoading {
        static let serverName = "test"
        static let secretVariable = "X"
        static func jwtSettings(configPath: String?) throws -> JWTSettings { JWTSettings() }
    }
}
