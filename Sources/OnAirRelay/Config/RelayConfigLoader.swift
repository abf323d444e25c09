import Foundation
import OnAirPostgres
import OnAirDecoding
import OnAirWire
import Yams

/// Loads ``RelayConfig``: defaults, then the YAML file (if any), then environment variables.
public enum RelayConfigLoader {
    /// A config problem worded for the person who has to fix it.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    public static func load(path: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(Problem) -> RelayConfig
    {
        var config = RelayConfig()
        if let path {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Problem(description: "cannot read config file \(path)")
            }
            let text = String(decoding: data, as: UTF8.self)
            do {
                // A file of comments only is an empty document: the defaults.
                if try Yams.compose(yaml: text) != nil {
                    config = try YAMLDecoder().decode(RelayConfig.self, from: text)
                }
            } catch let error as UnknownKey {
                throw Problem(description: "\(path): \(error)")
            } catch let error as DecodingError {
                // Yams wraps errors thrown while decoding into dataCorrupted: unwrap ours.
                if let unknown = UnknownKey.find(in: error) { throw Problem(description: "\(path): \(unknown)") }
                throw Problem(description: "\(path): \(error.readable)")
            } catch {
                throw Problem(description: "\(path): \(error)")
            }
        }
        try apply(environment: environment, to: &config)
        try validate(config)
        return config
    }

    /// Environment overrides, one per commonly changed setting (documented in config/relay.yaml).
    static func apply(environment env: [String: String], to config: inout RelayConfig) throws(Problem) {
        func int(_ name: String) throws(Problem) -> Int? {
            guard let raw = env[name] else { return nil }
            guard let value = Int(raw) else { throw Problem(description: "\(name)=\(raw) is not a whole number") }
            return value
        }
        func double(_ name: String) throws(Problem) -> Double? {
            guard let raw = env[name] else { return nil }
            guard let value = Double(raw) else { throw Problem(description: "\(name)=\(raw) is not a number") }
            return value
        }
        func list(_ name: String) -> [String]? {
            env[name].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        if let v = env["ONAIR_HTTP_HOST"] { config.http.host = v }
        if let v = try int("ONAIR_HTTP_PORT") { config.http.port = v }
        if let v = env["ONAIR_PUBLIC_URL"] { config.http.publicURL = v }
        if let v = list("ONAIR_MEDIA_BIND") { config.media.bind = BindAddresses(v) }
        if let v = try int("ONAIR_UDP_PORT") { config.media.udpPort = v }
        if let v = try int("ONAIR_MEDIA_WORKERS") { config.media.workers = v }
        if let v = try int("ONAIR_TCP_PORT") { config.media.tcpPort = v }
        if let v = list("ONAIR_ADVERTISED_ADDRESSES") { config.media.advertisedAddresses = v }
        if let v = try double("ONAIR_CONSENT_TIMEOUT") { config.media.consentTimeoutSeconds = v }
        if let v = try double("ONAIR_VIEWER_CONSENT_TIMEOUT") { config.media.viewerConsentTimeoutSeconds = v }
        if let v = env["ONAIR_PUBLISH_TOKEN"] { config.auth.publishToken = v }
        if let v = env["ONAIR_VIEWER_TOKEN"] { config.auth.viewerToken = v }
        if let v = env["ONAIR_ADMIN_TOKEN"] { config.auth.adminToken = v }
        // ONAIR_JWT_SECRET, ONAIR_JWT_REQUIRED, ONAIR_JWT_JWKS_FILE, ONAIR_JWT_JWKS_URL, ONAIR_JWT_AUDIENCE, ONAIR_JWT_ISSUER.
        do { try config.auth.jwt.apply(environment: env, prefix: "ONAIR_JWT_") } catch { throw Problem(description: error.description) }
        if let v = list("ONAIR_ICE_SERVERS") { config.iceServers = v.map { RelayConfig.ICEServer(url: $0) } }
        if let v = try int("ONAIR_MAX_SESSIONS") { config.limits.maxSessions = v }
        if let v = try double("ONAIR_MAX_MEDIA_LOAD") { config.limits.maxMediaLoad = v }
        try applyWebhooks(environment: env, to: &config)
        try applyHLS(environment: env, to: &config)
        try applyTURN(environment: env, to: &config)
    }

    /// TURN REST credentials: ONAIR_TURN_URLS (comma list of turn:/turns: URIs), ONAIR_TURN_SECRET
    /// (coturn's static-auth-secret), ONAIR_TURN_TTL (whole seconds); both empty = no TURN server.
    static func applyTURN(environment env: [String: String], to config: inout RelayConfig) throws(Problem) {
        if let raw = env["ONAIR_TURN_URLS"] {
            config.turn.urls = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let v = env["ONAIR_TURN_SECRET"] { config.turn.secret = v.isEmpty ? nil : v }
        if let raw = env["ONAIR_TURN_TTL"] {
            guard let seconds = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                throw Problem(description: "ONAIR_TURN_TTL=\(raw) is not a whole number of seconds")
            }
            config.turn.ttlSeconds = seconds
        }
    }

    /// LL-HLS overrides: ONAIR_HLS_ENABLED (true/false), ONAIR_HLS_PART_TARGET,
    /// ONAIR_HLS_SEGMENT_TARGET, ONAIR_HLS_WINDOW, ONAIR_HLS_KEEP_AFTER_END (seconds each),
    /// ONAIR_HLS_RECORD_DIRECTORY (empty = record nothing).
    static func applyHLS(environment env: [String: String], to config: inout RelayConfig) throws(Problem) {
        func duration(_ name: String) throws(Problem) -> Duration? {
            guard let raw = env[name] else { return nil }
            guard let seconds = Double(raw.trimmingCharacters(in: .whitespaces)), let value = Duration(configSeconds: seconds) else {
                throw Problem(description: "\(name)=\(raw) is not a number of seconds")
            }
            return value
        }
        if let raw = env["ONAIR_HLS_ENABLED"] {
            switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
            case "1", "true", "yes", "on": config.hls.enabled = true
            case "0", "false", "no", "off": config.hls.enabled = false
            default: throw Problem(description: "ONAIR_HLS_ENABLED=\(raw) is not true or false")
            }
        }
        if let v = try duration("ONAIR_HLS_PART_TARGET") { config.hls.partTarget = v }
        if let v = try duration("ONAIR_HLS_SEGMENT_TARGET") { config.hls.segmentTarget = v }
        if let v = try duration("ONAIR_HLS_WINDOW") { config.hls.window = v }
        if let v = try duration("ONAIR_HLS_KEEP_AFTER_END") { config.hls.keepAfterEnd = v }
        if let v = env["ONAIR_HLS_RECORD_DIRECTORY"] { config.hls.recordDirectory = v.isEmpty ? nil : v }
    }

    /// Webhook overrides: ONAIR_DATABASE, ONAIR_WEBHOOK_URL + ONAIR_WEBHOOK_SECRET (one more
    /// subscriber, all event types), ONAIR_WEBHOOK_RETRY_SCHEDULE (comma list of seconds).
    static func applyWebhooks(environment env: [String: String], to config: inout RelayConfig) throws(Problem) {
        if let v = env["ONAIR_DATABASE"] { config.webhooks.database = v }
        switch (env["ONAIR_WEBHOOK_URL"], env["ONAIR_WEBHOOK_SECRET"]) {
        case (let url?, let secret?):
            config.webhooks.subscribers.removeAll { $0.url == url }
            config.webhooks.subscribers.append(.init(url: url, secret: secret))
        case (nil, nil):
            break
        default:
            throw Problem(description: "ONAIR_WEBHOOK_URL and ONAIR_WEBHOOK_SECRET go together")
        }
        if let raw = env["ONAIR_WEBHOOK_RETRY_SCHEDULE"] {
            let delays = raw.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !delays.isEmpty, delays.allSatisfy({ $0 != nil }) else {
                throw Problem(description: "ONAIR_WEBHOOK_RETRY_SCHEDULE=\(raw) is not a comma list of seconds")
            }
            config.webhooks.retryScheduleSeconds = delays.compactMap { $0 }
        }
    }

    static func validate(_ config: RelayConfig) throws(Problem) {
        guard (1...65535).contains(config.http.port) else { throw Problem(description: "http.port \(config.http.port) is not a port (1-65535)") }
        guard (0...65535).contains(config.media.udpPort) else { throw Problem(description: "media.udp_port \(config.media.udpPort) is not a port") }
        if let workers = config.media.workers {
            guard (1...256).contains(workers) else { throw Problem(description: "media.workers must be 1 to 256 (or left out: one per core)") }
        }
        guard config.media.udpPort == 0 || config.media.udpPort + config.media.workerCount - 1 <= 65535 else {
            throw Problem(description: "media.udp_port \(config.media.udpPort) + \(config.media.workerCount) workers runs past port 65535")
        }
        if let tcpPort = config.media.tcpPort {
            guard (0...65535).contains(tcpPort) else { throw Problem(description: "media.tcp_port \(tcpPort) is not a port") }
            guard tcpPort == 0 || tcpPort + config.media.workerCount - 1 <= 65535 else {
                throw Problem(description: "media.tcp_port \(tcpPort) + \(config.media.workerCount) workers runs past port 65535")
            }
        }
        do {
            _ = try config.media.bind.sockets()
        } catch {
            throw Problem(description: error.description)
        }
        guard config.media.tcpMaxConnections >= 1 else { throw Problem(description: "media.tcp_max_connections must be >= 1") }
        guard config.media.consentTimeoutSeconds > 0 else { throw Problem(description: "media.consent_timeout_seconds must be > 0") }
        guard config.media.viewerConsentTimeoutSeconds > 0 else {
            throw Problem(description: "media.viewer_consent_timeout_seconds must be > 0")
        }
        let hold = 3 * config.hls.segmentTarget.seconds  // the longest blocking LL-HLS playlist request
        guard config.http.idleTimeoutSeconds <= 0 || config.http.idleTimeoutSeconds > hold else {
            throw Problem(description: "http.idle_timeout_seconds \(config.http.idleTimeoutSeconds) must exceed 3 x hls.segment_target_seconds (\(hold)), or be 0 (no limit)")
        }
        guard config.limits.maxBodyBytes >= 1024 else { throw Problem(description: "limits.max_body_bytes must be at least 1024") }
        guard config.limits.maxMediaLoad > 0 && config.limits.maxMediaLoad <= 1 else {
            throw Problem(description: "limits.max_media_load \(config.limits.maxMediaLoad) must be above 0 and at most 1 (1 = no check)")
        }
        if let problem = config.webhooks.problems().first { throw Problem(description: problem) }
        let location: DatabaseLocation
        do { location = try DatabaseLocation(parsing: config.webhooks.database) } catch {
            throw Problem(description: "webhooks.database: \(error)")
        }
        if case .postgres = location, config.http.publicURL == nil {
            throw Problem(description: "http.public_url (ONAIR_PUBLIC_URL) is required with a PostgreSQL webhooks.database: "
                              + "it names this relay to the others (room directory, GET /api/streams)")
        }
        if let problem = config.hls.problems().first { throw Problem(description: problem) }
        if let problem = config.auth.jwt.problems(prefix: "auth.jwt").first { throw Problem(description: problem) }
        if let problem = config.turn.problems().first { throw Problem(description: problem) }
        for server in config.iceServers {
            // RFC 7064 §3.1 / RFC 7065 §3.1: scheme ":" host [":" port] [query].
            let parts = server.url.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let scheme = parts.first.map(String.init) ?? ""
            let host = parts.count == 2 ? parts[1].prefix { $0 != ":" && $0 != "?" } : ""
            guard ["stun", "stuns", "turn", "turns"].contains(scheme), !host.isEmpty else {
                throw Problem(description: "ice_servers: '\(server.url)' must start with stun:, stuns:, turn: or turns:")
            }
        }
    }
}
