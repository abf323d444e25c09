import Foundation

/// A stream lifecycle event as delivered to webhook subscribers: the Standard Webhooks
/// payload shape `{type, timestamp, data}`. The `webhook-id` header carries `id`.
public struct StreamEvent: Codable, Sendable, Equatable {
    /// `stream.started`, `stream.ended` or `stream.viewers`.
    public var type: String
    /// RFC 3339 time of the change.
    public var timestamp: String
    public var data: StreamEventData

    public init(type: String, timestamp: String, data: StreamEventData) {
        self.type = type
        self.timestamp = timestamp
        self.data = data
    }

    public static let started = "stream.started"
    public static let ended = "stream.ended"
    public static let viewers = "stream.viewers"
}

/// The fields of a stream event. `generation` grows with every new publisher session of the
/// room, so a late `stream.ended` of an old session is recognisable; `sequence` orders all
/// events of a room.
public struct StreamEventData: Codable, Sendable, Equatable {
    public var eventID: String
    public var room: String
    public var generation: Int64
    public var sequence: Int64
    public var sessionID: String
    /// `stream.ended` only: publisher_deleted, publisher_timeout, dtls_closed, dtls_failed,
    /// kicked, relay_shutdown.
    public var reason: String?
    public var durationSeconds: Double?
    public var bytesIn: UInt64?
    public var bytesOut: UInt64?
    public var peakViewers: Int?
    /// `stream.viewers` only.
    public var viewers: Int?
    /// `stream.started` only, e.g. "video/H264/90000".
    public var codecs: [String]?

    public init(eventID: String, room: String, generation: Int64, sequence: Int64, sessionID: String,
                reason: String? = nil, durationSeconds: Double? = nil, bytesIn: UInt64? = nil, bytesOut: UInt64? = nil,
                peakViewers: Int? = nil, viewers: Int? = nil, codecs: [String]? = nil) {
        self.eventID = eventID
        self.room = room
        self.generation = generation
        self.sequence = sequence
        self.sessionID = sessionID
        self.reason = reason
        self.durationSeconds = durationSeconds
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.peakViewers = peakViewers
        self.viewers = viewers
        self.codecs = codecs
    }

    enum CodingKeys: String, CodingKey {
        case eventID = "event_id", room, generation, sequence, sessionID = "session_id", reason
        case durationSeconds = "duration_seconds", bytesIn = "bytes_in", bytesOut = "bytes_out"
        case peakViewers = "peak_viewers", viewers, codecs
    }
}

extension StreamEvent {
    /// The canonical body bytes (sorted keys) that get signed and sent.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }

    public static func decode(_ body: [UInt8]) throws -> StreamEvent {
        try JSONDecoder().decode(StreamEvent.self, from: Data(body))
    }
}
