/// Who is banned from a room and who is muted until when: what a room's worker checks on
/// every join and post. Read from the store when the room loads (bans and mutes outlive
/// restarts and are shared by the nodes of one database), then kept current by the room's own
/// actions and the other nodes' events. Slow mode is part of ``RoomRecord``.
public struct RoomModeration: Sendable, Equatable {
    /// Banned user ids.
    public var bans: Set<String>
    /// Muted user ids, and the end of each mute (ms since 1970).
    public var mutes: [String: Int64]

    public init(bans: Set<String> = [], mutes: [String: Int64] = [:]) {
        self.bans = bans
        self.mutes = mutes
    }

    /// When `user`'s mute ends, if it lasts beyond `now`.
    public func mutedUntil(_ user: String, now: Int64) -> Int64? {
        guard let until = mutes[user], until > now else { return nil }
        return until
    }
}
