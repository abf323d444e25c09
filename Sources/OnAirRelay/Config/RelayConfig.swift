import OnAirAuth
import OnAirForwarding
import OnAirDecoding
import OnAirWebRTC
import OnAirWire

/// Everything the relay can be told, with loopback defaults so that it runs with no
/// config file at all. Loaded from YAML (`config/relay.yaml`), then overridden by
/// environment variables (see ``RelayConfig/applyEnvironment(_:)``).
public struct RelayConfig: Codable, Sendable, Equatable {
    public var http = HTTP()
    public var media = Media()
    public var auth = Auth()
    public var limits = Limits()
    /// ICE servers advertised to WHIP/WHEP clients as `Link: <url>; rel="ice-server"` (RFC 9725 §4.6).
    public var iceServers: [ICEServer] = []
    /// A TURN server sharing a secret with the relay: ephemeral credentials minted per request
    /// and advertised next to ``iceServers`` (Config/TURNSettings.swift).
    public var turn = TURNSettings()
    /// Per-room settings keyed by room id.
    public var rooms: [String: Room] = [:]
    /// Stream lifecycle webhooks: outbox database, subscribers, retries (Webhooks/WebhooksConfig.swift).
    public var webhooks = Webhooks()
    /// LL-HLS packaging and recording (HLS/HLSSettings.swift).
    public var hls = HLSSettings()

    public init() {}

    public struct HTTP: Codable, Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// Origins allowed by CORS; `["*"]` allows any.
        public var corsOrigins = ["*"]
        /// Base URL the relay is reached at from outside, for absolute links (optional).
        public var publicURL: String? = nil
        /// Seconds a new connection has to send a complete request head (idle sockets,
        /// slowloris); 0 = no limit.
        public var requestHeadTimeoutSeconds = 10.0
        /// Seconds a connection may stay silent both ways before it is closed; 0 = no limit.
        /// Must exceed the longest blocking LL-HLS hold (3 x hls.segment_target_seconds).
        public var idleTimeoutSeconds = 60.0

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            host = try c.value(.host, default: host)
            port = try c.value(.port, default: port)
            corsOrigins = try c.value(.corsOrigins, default: corsOrigins)
            publicURL = try c.value(.publicURL, default: publicURL)
            requestHeadTimeoutSeconds = try c.value(.requestHeadTimeoutSeconds, default: requestHeadTimeoutSeconds)
            idleTimeoutSeconds = try c.value(.idleTimeoutSeconds, default: idleTimeoutSeconds)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, port, corsOrigins = "cors_origins", publicURL = "public_url"
            case requestHeadTimeoutSeconds = "request_head_timeout_seconds", idleTimeoutSeconds = "idle_timeout_seconds"
        }
    }

    public struct Media: Codable, Sendable, Equatable {
        /// Addresses the media sockets bind to: each worker has a UDP socket and an ICE-TCP
        /// listener on each (``BindAddresses``: "::" is dual stack).
        public var bind: BindAddresses = "127.0.0.1"
        /// The first media worker's UDP port; worker `i` listens on `udpPort + i`. The sessions
        /// of a worker share its port (RFC 7983 demux). 0: each worker its own ephemeral port.
        public var udpPort = 10_000
        /// Whether the relay offers passive ICE-TCP candidates (RFC 6544) next to UDP, for
        /// peers whose network drops UDP.
        public var iceTCP = true
        /// The first media worker's ICE-TCP port; worker `i` listens on `tcpPort + i`. nil:
        /// the same numbers as ``udpPort`` (0: each worker its own ephemeral port).
        public var tcpPort: Int? = nil
        /// ICE-TCP connections per worker, authenticated or not; more are closed at once.
        public var tcpMaxConnections = 4_096
        /// Media workers (event loops, each with its own UDP socket); nil: one per core this
        /// process may use. 1 keeps everything on one loop.
        public var workers: Int? = nil
        /// Addresses put into ICE candidates. Empty: the bind addresses, a wildcard one standing
        /// for the machine's addresses of its family.
        public var advertisedAddresses: [String] = []
        /// A publisher with no valid STUN, DTLS or SRTP traffic for this long is gone (RFC 7675):
        /// its stream ends.
        public var consentTimeoutSeconds = MediaPlaneSettings.defaults.consentTimeoutSeconds
        /// The same for a viewer, which sends only RTCP and consent checks (a receive-only
        /// libnice peer: RTCP every 5-9 s, STUN every 25 s).
        public var viewerConsentTimeoutSeconds = MediaPlaneSettings.defaults.viewerConsentTimeoutSeconds
        /// Packets kept per stream for answering NACKs.
        public var retransmitCacheSize = MediaPlaneSettings.defaults.retransmitCacheSize
        /// Bitrate (bit/s) announced to publishers in REMB where negotiated: the most we take.
        public var maxPublishBitrate = MediaPlaneSettings.defaults.maxPublishBitrate

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            bind = try c.value(.bind, default: bind)
            udpPort = try c.value(.udpPort, default: udpPort)
            workers = try c.value(.workers, default: workers)
            iceTCP = try c.value(.iceTCP, default: iceTCP)
            tcpPort = try c.value(.tcpPort, default: tcpPort)
            tcpMaxConnections = try c.value(.tcpMaxConnections, default: tcpMaxConnections)
            advertisedAddresses = try c.value(.advertisedAddresses, default: advertisedAddresses)
            consentTimeoutSeconds = try c.value(.consentTimeoutSeconds, default: consentTimeoutSeconds)
            viewerConsentTimeoutSeconds = try c.value(.viewerConsentTimeoutSeconds, default: viewerConsentTimeoutSeconds)
            retransmitCacheSize = try c.value(.retransmitCacheSize, default: retransmitCacheSize)
            maxPublishBitrate = try c.value(.maxPublishBitrate, default: maxPublishBitrate)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case bind, udpPort = "udp_port", workers, advertisedAddresses = "advertised_addresses"
            case iceTCP = "ice_tcp", tcpPort = "tcp_port", tcpMaxConnections = "tcp_max_connections"
            case consentTimeoutSeconds = "consent_timeout_seconds", retransmitCacheSize = "retransmit_cache_size"
            case viewerConsentTimeoutSeconds = "viewer_consent_timeout_seconds"
            case maxPublishBitrate = "max_publish_bitrate"
        }
    }

    public struct Auth: Codable, Sendable, Equatable {
        /// Publish token accepted for any room without its own. nil with no room tokens = open
        /// publishing (fine on loopback; the relay warns when it binds elsewhere).
        public var publishToken: String? = nil
        /// Viewer token for every room without its own; nil = open viewing.
        public var viewerToken: String? = nil
        /// Admin token for the management API (kick, webhooks).
        public var adminToken: String? = nil
        /// Access tokens (JWT) signed by the app's backend (issue 28): taken wherever a static
        /// token is; with `required`, the only tokens taken (Sources/OnAirAuth).
        public var jwt = JWTSettings()

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            publishToken = try c.value(.publishToken, default: publishToken)
            viewerToken = try c.value(.viewerToken, default: viewerToken)
            adminToken = try c.value(.adminToken, default: adminToken)
            jwt = try c.value(.jwt, default: jwt)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case publishToken = "publish_token", viewerToken = "viewer_token", adminToken = "admin_token", jwt
        }
    }

    public struct Limits: Codable, Sendable, Equatable {
        /// Largest SDP body accepted (413 above).
        public var maxBodyBytes = 64 * 1024
        /// Sessions (publishers + viewers) across all rooms (503 above).
        public var maxSessions = MediaPlaneSettings.defaults.maxSessions
        /// Viewers in one room (503 above).
        public var maxViewersPerRoom = MediaPlaneSettings.defaults.maxViewersPerRoom
        /// Seconds a POST waits for nothing: sessions that never complete ICE+DTLS are dropped.
        public var connectTimeoutSeconds = MediaPlaneSettings.defaults.connectTimeoutSeconds
        /// Share of its core the media loop may be busy with before new viewers get 503
        /// (``MediaLoadMeter``); 1 turns the check off.
        public var maxMediaLoad = MediaPlaneSettings.defaults.maxMediaLoad

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            maxBodyBytes = try c.value(.maxBodyBytes, default: maxBodyBytes)
            maxSessions = try c.value(.maxSessions, default: maxSessions)
            maxViewersPerRoom = try c.value(.maxViewersPerRoom, default: maxViewersPerRoom)
            connectTimeoutSeconds = try c.value(.connectTimeoutSeconds, default: connectTimeoutSeconds)
            maxMediaLoad = try c.value(.maxMediaLoad, default: maxMediaLoad)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case maxBodyBytes = "max_body_bytes", maxSessions = "max_sessions"
            case maxViewersPerRoom = "max_viewers_per_room", connectTimeoutSeconds = "connect_timeout_seconds"
            case maxMediaLoad = "max_media_load"
        }
    }

    public struct ICEServer: Codable, Sendable, Equatable {
        public var url: String
        public var username: String? = nil
        public var credential: String? = nil

        enum CodingKeys: String, CodingKey, CaseIterable { case url, username, credential }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            username = try c.value(.username, default: nil)
            credential = try c.value(.credential, default: nil)
        }

        public init(url: String, username: String? = nil, credential: String? = nil) {
            self.url = url
            self.username = username
            self.credential = credential
        }
    }

    public struct Room: Codable, Sendable, Equatable {
        public var publishToken: String? = nil
        public var viewerToken: String? = nil

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            publishToken = try c.value(.publishToken, default: publishToken)
            viewerToken = try c.value(.viewerToken, default: viewerToken)
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case publishToken = "publish_token", viewerToken = "viewer_token" }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case http, media, auth, limits, iceServers = "ice_servers", turn, rooms, webhooks, hls }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
        http = try c.value(.http, default: http)
        media = try c.value(.media, default: media)
        auth = try c.value(.auth, default: auth)
        limits = try c.value(.limits, default: limits)
        iceServers = try c.value(.iceServers, default: iceServers)
        turn = try c.value(.turn, default: turn)
        rooms = try c.value(.rooms, default: rooms)
        webhooks = try c.value(.webhooks, default: webhooks)
        hls = try c.value(.hls, default: hls)
    }

    /// The token a publisher of `room` must present, or nil when publishing is open.
    public func publishToken(for room: String) -> String? {
        rooms[room]?.publishToken ?? auth.publishToken
    }

    /// The token a viewer of `room` must present, or nil when viewing is open.
    public func viewerToken(for room: String) -> String? {
        rooms[room]?.viewerToken ?? auth.viewerToken
    }

    /// Candidate addresses: the advertised ones, else the bind addresses, a wildcard standing
    /// for every address of its family the machine has (loopback when it has no other IPv4).
    public var candidateAddresses: [String] {
        guard media.advertisedAddresses.isEmpty else { return media.advertisedAddresses }
        guard let sockets = try? media.bind.sockets() else { return media.bind.addresses }
        var addresses: [String] = []
        for socket in sockets {
            var found = [socket]
            if socket.isWildcard {
                found = InterfaceAddresses.list(ipv4: socket.isIPv4, ipv6: !socket.isIPv4)
                if found.isEmpty && socket.isIPv4 { found = [TransportAddress(ip: .v4(0x7F00_0001), port: 0)] }
            }
            for address in found where !addresses.contains(address.host) { addresses.append(address.host) }
        }
        return addresses
    }
}
