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

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
            host = try c.or(.host, host)
            port = try c.or(.port, port)
            corsOrigins = try c.or(.corsOrigins, corsOrigins)
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case host, port, corsOrigins = "cors_origins" }
    }

    public struct Database: Codable, Sendable, Equatable {
        /// SQLite file holding messages, room states and seen webhook ids. `:memory:` keeps
        /// nothing across restarts (tests only).
        public var path = "chat.sqlite"

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
            path = try c.or(.path, path)
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case path }
    }

    public struct Auth: Codable, Sendable, Equatable {
        /// When set, a WebSocket `join` must carry this `token`; nil = anyone may chat.
        public var joinToken: String? = nil
        /// Bearer token for `POST /rooms/{id}/messages` (bots); nil = bot posting is off.
        public var botToken: String? = nil

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
            joinToken = try c.or(.joinToken, joinToken)
            botToken = try c.or(.botToken, botToken)
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case joinToken = "join_token", botToken = "bot_token" }
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
            let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
            secrets = try c.or(.secrets, secrets)
            maxBodyBytes = try c.or(.maxBodyBytes, maxBodyBytes)
            dedupeHours = try c.or(.dedupeHours, dedupeHours)
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
            let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
            historyOnJoin = try c.or(.historyOnJoin, historyOnJoin)
            resumeLimit = try c.or(.resumeLimit, resumeLimit)
            maxPage = try c.or(.maxPage, maxPage)
            presenceIntervalMS = try c.or(.presenceIntervalMS, presenceIntervalMS)
            memberListLimit = try c.or(.memberListLimit, memberListLimit)
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
        /// Bytes queued for one slow client before it is disconnected (it resumes from its
        /// last message id when it comes back).
        public var clientBufferBytes = 1 << 20

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
            maxMessageChars = try c.or(.maxMessageChars, maxMessageChars)
            maxNameChars = try c.or(.maxNameChars, maxNameChars)
            maxFrameBytes = try c.or(.maxFrameBytes, maxFrameBytes)
            messagesPerSecond = try c.or(.messagesPerSecond, messagesPerSecond)
            messageBurst = try c.or(.messageBurst, messageBurst)
            framesPerSecond = try c.or(.framesPerSecond, framesPerSecond)
            frameBurst = try c.or(.frameBurst, frameBurst)
            clientBufferBytes = try c.or(.clientBufferBytes, clientBufferBytes)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case maxMessageChars = "max_message_chars", maxNameChars = "max_name_chars"
            case maxFrameBytes = "max_frame_bytes", messagesPerSecond = "messages_per_second"
            case messageBurst = "message_burst", framesPerSecond = "frames_per_second", frameBurst = "frame_burst"
            case clientBufferBytes = "client_buffer_bytes"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case http, database, auth, webhooks, rooms, limits }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.chatStrictContainer(keyedBy: CodingKeys.self)
        http = try c.or(.http, http)
        database = try c.or(.database, database)
        auth = try c.or(.auth, auth)
        webhooks = try c.or(.webhooks, webhooks)
        rooms = try c.or(.rooms, rooms)
        limits = try c.or(.limits, limits)
    }
}
