import OnAirWebhooks

/// What a stream event from the relay does to a chat room (pure: the store runs it inside
/// its transaction, tests run it on values).
///
/// Ordering: every event carries the publisher session's `generation` (grows with each new
/// session of the room) and the room-wide `sequence`. An event at or below the newest
/// `(generation, sequence)` already applied is ignored, so a late `stream.ended` of an old
/// session cannot close the chat of the session that replaced it, and a re-sent event under a
/// new `webhook-id` changes nothing twice.
public enum RoomLifecycle {
    /// The system message posted when a stream starts.
    public static let startedText = "stream started"
    /// The system message posted when a stream ends; the relay's reason follows in brackets.
    public static let endedText = "stream ended"
    /// The `name` of system messages.
    public static let systemName = "OnAir"

    public static func decide(_ event: StreamEvent, for room: RoomRecord, now: Int64) -> RoomTransition {
        let data = event.data
        if let generation = room.generation {
            if data.generation < generation {
                return .ignore(reason: "older generation \(data.generation) < \(generation)")
            }
            if data.generation == generation, let sequence = room.sequence, data.sequence <= sequence {
                return .ignore(reason: "sequence \(data.sequence) already applied (newest \(sequence)) in generation \(generation)")
            }
        }
        var updated = room
        updated.generation = data.generation
        updated.sequence = data.sequence
        updated.updatedAt = now
        switch event.type {
        case StreamEvent.started:
            updated.state = .open
            updated.closedReason = nil
            let draft = MessageDraft(room: room.id, kind: .system, name: systemName, text: startedText, at: now,
                                     event: event.type)
            return .apply(updated: updated, message: draft)
        case StreamEvent.ended:
            let reason = data.reason ?? "unknown"
            updated.state = .closed
            updated.closedReason = reason
            // Already closed (a second end in the same session): remember the event, say nothing twice.
            let draft = room.state == .closed ? nil
                : MessageDraft(room: room.id, kind: .system, name: systemName, text: "\(endedText) (\(reason))", at: now,
                               event: event.type, reason: reason)
            return .apply(updated: updated, message: draft)
        case StreamEvent.viewers:
            updated.viewers = data.viewers ?? updated.viewers
            return .apply(updated: updated, message: nil)
        default:
            return .ignore(reason: "event type \(event.type) means nothing to chat")
        }
    }
}
