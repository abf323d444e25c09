/// Rate limit of `stream.viewers`: per room at most one event per `interval`, and only when
/// the count differs from the last one sent. A change inside the interval is held and sent
/// when the interval has passed (if it still differs). Sans-I/O: time comes in as `now`.
struct ViewerUpdateThrottle {
    struct Update: Equatable, Sendable {
        var room: String
        var sessionID: String
        var viewers: Int
    }

    private struct RoomState {
        var sessionID: String
        var lastSentAt: Double?
        var lastSent: Int?
        var pending: Int?
    }

    let interval: Double
    private var rooms: [String: RoomState] = [:]

    init(interval: Double) { self.interval = interval }

    /// The count changed: the update to send now, if any.
    mutating func changed(room: String, sessionID: String, viewers: Int, now: Double) -> Update? {
        var state = rooms[room].flatMap { $0.sessionID == sessionID ? $0 : nil } ?? RoomState(sessionID: sessionID)
        defer { rooms[room] = state }
        guard viewers != state.lastSent else {
            state.pending = nil
            return nil
        }
        if let last = state.lastSentAt, now - last < interval {
            state.pending = viewers
            return nil
        }
        state.lastSentAt = now
        state.lastSent = viewers
        state.pending = nil
        return Update(room: room, sessionID: sessionID, viewers: viewers)
    }

    /// Held changes whose interval has passed.
    mutating func due(now: Double) -> [Update] {
        var updates: [Update] = []
        for (room, var state) in rooms {
            guard let pending = state.pending, let last = state.lastSentAt, now - last >= interval else { continue }
            state.pending = nil
            state.lastSentAt = now
            state.lastSent = pending
            rooms[room] = state
            updates.append(Update(room: room, sessionID: state.sessionID, viewers: pending))
        }
        return updates.sorted { $0.room < $1.room }
    }

    /// The room's stream started or ended: forget what was sent for it.
    mutating func reset(room: String) {
        rooms[room] = nil
    }
}
