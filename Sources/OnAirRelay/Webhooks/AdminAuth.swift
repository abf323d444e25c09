import Hummingbird

/// The management API (kick, webhooks, events) takes `auth.admin_token` as a Bearer token
/// (RFC 6750). Without a configured token it is off: an open admin API could read webhook
/// logs, add subscribers and end streams.
enum AdminAuth {
    static func require(_ config: RelayConfig, _ request: Request) throws {
        guard let token = config.auth.adminToken, !token.isEmpty else {
            throw RelayHTTPError(.forbidden, "the admin API is off: set auth.admin_token (or ONAIR_ADMIN_TOKEN)")
        }
        try BearerAuth.require(token, in: request, what: "the admin API")
    }
}
