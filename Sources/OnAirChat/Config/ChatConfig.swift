import OnAirAuth
import OnAirDecoding
/// Everything the chat sidecar can be told, with loopback defaults so that it runs with no
/// config file at all (127.0.0.1:8081, `chat.sqlite` in the working directory). Loaded from
/// YAML (`config/chat.yaml`), then overridden by environment variables (``ChatConfigLoader``).
public struct ChatConfig: Codable, Sendable, Equatable {
    public var http = HTTP()
    public var database = Database()
    public var auth = Auth()
    public var webhooks = Webhooks()
    public var rooms = Rooms()
    public var limits = Limits()

    public init() {}

    public struct HTTP: Codable, Sendable, Equatable {
        public var host = "127.0.0.1"
        /// 0 picks a free port (tests).
        public var port = 8081
        /// Origins allowed to call the REST API and open WebSockets from a browser; `["*"]` allows any
        /// (the viewer page is served by the relay, on another origin).
        public var corsOrigins = ["*"]
        /// Seconds a new connection has to send a complete request head (idle sockets,
        /// slowloris); 0 = no limit.
        public var requestHeadTimeoutSeconds = 10.0
        /// Seconds a connection may stay silent both ways before it is closed; 0 = no limit.
        /// Must exceed the WebSocket ping interval (``ChatServer/webSocketPingSeconds``, 30 s).
        public var idleTimeoutSeconds = 60.0

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            host = try c.value(.host, default: host)
            port = try c.value(.port, default: port)
            corsOrigins = try c.value(.corsOrigins, default: corsOrigins)
            requestHeadTimeoutSeconds = try c.value(.requestHeadTimeoutSeconds, default: requestHeadTimeoutSeconds)
            idleTimeoutSeconds = try c.value(.idleTimeoutSeconds, default: idleTimeoutSeconds)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case host, port, corsOrigins = "cors_origins"
            case requestHeadTimeoutSeconds = "request_head_timeout_seconds", idleTimeoutSeconds = "idle_timeout_seconds"
        }
    }

    public struct Database: Codable, Sendable, Equatable {
        /// Where messages, room states and seen webhook ids live: a SQLite file (one node;
        /// `:memory:` keeps nothing across restarts, tests only) or a `postgres://` URL (a
        /// database that several chat nodes share). YAML: `database: <path or URL>`, or the
        /// older `database: {path: ...}`.
        public var path = "chat.sqlite"

        public init() {}

        public init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
                path = text
                return
            }
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            path = try c.value(.path, default: path)
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case path }
    }

    public struct Auth: Codable, Sendable, Equatable {
        /// When set, a WebSocket `join` must carry this `token`; nil = anyone may chat.
        public var joinToken: String? = nil
        /// Bearer token for `POST /rooms/{id}/messages` (bots); nil = bot posting is off.
        public var botToken: String? = nil
        /// Access tokens (JWT) with the `chat` grant: the join frame's `token` and REST's
        /// `Authorization: Bearer`; the member is the token's `sub` and `name` (issue 28).
        public var jwt = JWTSettings()

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            joinToken = try c.value(.joinToken, default: joinToken)
            botToken = try c.value(.botToken, default: botToken)
            jwt = try c.value(.jwt, default: jwt)
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case joinToken = "join_token", botToken = "bot_token", jwt }
    }

    public struct Webhooks: Codable, Sendable, Equatable {
        /// Standard Webhooks secrets (`whsec_...`) accepted on `POST /hooks/relay`; several during
        /// rotation. Empty = the receiver answers 503 (never trusts unsigned events).
        public var secrets: [String] = []
        /// Largest webhook body read (413 above).
        public var maxBodyBytes = 64 * 1024
        /// How long a seen `webhook-id` is remembered (longer than the 5-minute timestamp
        /// tolerance, after which a replay fails the timestamp check anyway).
        public var dedupeHours = 48.0

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            secrets = try c.value(.secrets, default: secrets)
            maxBodyBytes = try c.value(.maxBodyBytes, default: maxBodyBytes)
            dedupeHours = try c.value(.dedupeHours, default: dedupeHours)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case secrets, maxBodyBytes = "max_body_bytes", dedupeHours = "dedupe_hours"
        }
    }

    public struct Rooms: Codable, Sendable, Equatable {
        /// Messages sent with `joined` to a client that joins without a resume point.
        public var historyOnJoin = 50
        /// Most messages replayed to a resuming client in `joined`; beyond that `more` is true
        /// and the client pages the rest with `history`.
        public var resumeLimit = 1000
        /// Largest page for `history` and `GET /rooms/{id}/messages`.
        public var maxPage = 200
        /// Presence changes are batched into one `presence` frame at most this often.
        public var presenceIntervalMS = 1000
        /// Most members listed in `joined` and `who` answers (the count is always exact).
        public var memberListLimit = 200

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            historyOnJoin = try c.value(.historyOnJoin, default: historyOnJoin)
            resumeLimit = try c.value(.resumeLimit, default: resumeLimit)
            maxPage = try c.value(.maxPage, default: maxPage)
            presenceIntervalMS = try c.value(.presenceIntervalMS, default: presenceIntervalMS)
            memberListLimit = try c.value(.memberListLimit, default: memberListLimit)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case historyOnJoin = "history_on_join", resumeLimit = "resume_limit", maxPage = "max_page"
            case presenceIntervalMS = "presence_interval_ms", memberListLimit = "member_list_limit"
        }
    }

    public struct Limits: Codable, Sendable, Equatable {
        /// Longest chat message, in Unicode scalars (`too_long` error frame above).
        public var maxMessageChars = 500
        /// Longest display name, in Unicode scalars.
        public var maxNameChars = 32
        /// Largest WebSocket message read; a bigger one closes the socket with 1009.
        public var maxFrameBytes = 16 * 1024
        /// Token bucket for `send`: sustained rate per connection ...
        public var messagesPerSecond = 2.0
        /// ... and burst.
        public var messageBurst = 5.0
        /// Token bucket for every frame a client sends (bad JSON included).
        public var framesPerSecond = 20.0
        public var frameBurst = 40.0
        /// Token bucket for `send` per user (an access token's `sub`) in a room, over all of the
        /// user's connections to it on this node: ten tabs do not get ten times the rate. Open-chat
        /// members (no token) have no user id and only the per-connection bucket.
        public var userMessagesPerSecond = 4.0
        public var userMessageBurst = 10.0
        /// Bytes queued for one slow client before it is disconnected (it resumes from its
        /// last message id when it comes back).
        public var clientBufferBytes = 1 << 20

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            maxMessageChars = try c.value(.maxMessageChars, default: maxMessageChars)
            maxNameChars = try c.value(.maxNameChars, default: maxNameChars)
            maxFrameBytes = try c.value(.maxFrameBytes, default: maxFrameBytes)
            messagesPerSecond = try c.value(.messagesPerSecond, default: messagesPerSecond)
            messageBurst = try c.value(.messageBurst, default: messageBurst)
            framesPerSecond = try c.value(.framesPerSecond, default: framesPerSecond)
            frameBurst = try c.value(.frameBurst, default: frameBurst)
            userMessagesPerSecond = try c.value(.userMessagesPerSecond, default: userMessagesPerSecond)
            userMessageBurst = try c.value(.userMessageBurst, default: userMessageBurst)
            clientBufferBytes = try c.value(.clientBufferBytes, default: clientBufferBytes)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case maxMessageChars = "max_message_chars", maxNameChars = "max_name_chars"
            case maxFrameBytes = "max_frame_bytes", messagesPerSecond = "messages_per_second"
            case messageBurst = "message_burst", framesPerSecond = "frames_per_second", frameBurst = "frame_burst"
            case clientBufferBytes = "client_buffer_bytes"
            case userMessagesPerSecond = "user_messages_per_second", userMessageBurst = "user_message_burst"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case http, database, auth, webhooks, rooms, limits }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
        http = try c.value(.http, default: http)
        database = try c.value(.database, default: database)
        auth = try c.value(.auth, default: auth)
        webhooks = try c.value(.webhooks, default: webhooks)
        rooms = try c.value(.rooms, default: rooms)
        limits = try c.value(.limits, default: limits)
    }
}
