import OnAirChatProtocol

/// Moderation in a room's worker (issue 28): a moderator's action is checked by the caller
/// (the `moderate` grant for the room), stored where it must outlive the process (bans,
/// mutes, slow mode, tombstones), applied to the live room (connections closed, posts
/// refused), told to every member as an event frame and rung to the other nodes, which apply
/// and tell it the same way (``applyRemote(_:)``).
extension RoomWorker {
    /// Re-reads bans and mutes (at load, and when the cluster may have missed events).
    mutating func reloadModeration() async {
        do {
            moderation = try await store.moderation(room: room.id, now: clock.milliseconds())
        } catch {
            logger.error("bans and mutes not read: \(error)")
            return
        }
        // A ban this node did not hear of: its user leaves now.
        let banned = members.filter { $0.value.info.user.map(moderation.bans.contains) ?? false }
        for (id, _) in banned { closeMember(id, code: .banned, message: Self.bannedMessage(room.id)) }
    }

    /// Whether a post by `poster` may go out at `now` (ms since 1970): mute, slow mode, the
    /// per-user bucket. Per message: dictionary lookups only.
    mutating func admit(_ poster: PosterLimits.Poster, user: String?, moderator: Bool, now: Int64) -> RoomRefusal? {
        if let user, let until = moderation.mutedUntil(user, now: now) { return .muted(until: until) }
        switch posterLimits.admit(poster, slowModeSeconds: record.slowModeSeconds, exempt: moderator, now: clock.monotonicSeconds()) {
        case nil: return nil
        case .slowMode(let wait): return .slowMode(retryAfterMS: Self.milliseconds(wait))
        case .rateLimited(let wait): return .rateLimited(retryAfterMS: Self.milliseconds(wait))
        }
    }

    /// The error frame of a refused post.
    func errorFrame(_ refusal: RoomRefusal, ref: String?) -> ServerFrame {
        switch refusal {
        case .muted(let until):
            return .error(code: .muted, message: "a moderator muted you until \(RFC3339.format(milliseconds: until))", ref: ref,
                          retryAfterMS: Int(max(0, until - clock.milliseconds())))
        case .slowMode(let wait):
            return .error(code: .slowMode, message: "slow mode: one message every \(record.slowModeSeconds) s", ref: ref, retryAfterMS: wait)
        case .rateLimited(let wait):
            return .error(code: .rateLimited, message: "slow down: at most \(config.limits.userMessagesPerSecond) messages per second per user",
                          ref: ref, retryAfterMS: wait)
        case .banned:
            return .error(code: .banned, message: Self.bannedMessage(room.id), ref: ref)
        case .notFound, .closed, .storeFailed, .shuttingDown:
            return .error(code: .internalError, message: "\(refusal)", ref: ref)
        }
    }

    static func bannedMessage(_ room: String) -> String { "a moderator banned you from room \(room)" }

    /// Carries out a moderator's action here, stores what must persist, tells the room and the other nodes.
    mutating func moderate(_ request: ModerationRequest) async -> Result<ModerationEvent, RoomRefusal> {
        let now = clock.milliseconds()
        let event: ModerationEvent
        do {
            switch request.action {
            case .delete(let id):
                guard let tombstone = try await store.deleteMessage(room: room.id, id: id, by: request.by, at: now) else {
                    return .failure(.notFound)
                }
                event = ModerationEvent(kind: .messageDeleted, room: room.id, user: tombstone.userID, messageID: id,
                                        by: tombstone.deletedBy ?? request.by, at: tombstone.deletedAt ?? now)
            case .mute(let user, let seconds):
                let until = seconds > 0 ? now + Int64(seconds) * 1000 : nil
                try await store.setMute(room: room.id, user: user, until: until, by: request.by, at: now)
                event = ModerationEvent(kind: until == nil ? .memberUnmuted : .memberMuted, room: room.id, user: user,
                                        seconds: until == nil ? nil : seconds, until: until, by: request.by, at: now)
            case .kick(let user):
                event = ModerationEvent(kind: .memberKicked, room: room.id, user: user, by: request.by, at: now)
            case .ban(let user):
                try await store.setBan(room: room.id, user: user, banned: true, by: request.by, at: now)
                event = ModerationEvent(kind: .memberBanned, room: room.id, user: user, by: request.by, at: now)
            case .unban(let user):
                try await store.setBan(room: room.id, user: user, banned: false, by: request.by, at: now)
                event = ModerationEvent(kind: .memberUnbanned, room: room.id, user: user, by: request.by, at: now)
            case .slowMode(let seconds):
                let stored = try await store.setSlowMode(room: room.id, seconds: seconds, at: now)
                record.slowModeSeconds = stored.slowModeSeconds
                event = ModerationEvent(kind: .slowMode, room: room.id, seconds: seconds, by: request.by, at: now)
            }
        } catch {
            logger.error("moderation \(request.action.type) not stored: \(error)")
            return .failure(.storeFailed("\(error)"))
        }
        logger.info("moderation: \(event.kind.rawValue) \(event.user ?? event.messageID.map { "#\($0)" } ?? "") by \(request.by)")
        apply(event)
        cluster?.announce(event)
        return .success(event)
    }

    /// Another node's action: the store already holds it; apply it to this node's members.
    mutating func applyRemote(_ event: ModerationEvent) {
        guard event.room == room.id else { return }
        switch event.kind {
        case .slowMode: record.slowModeSeconds = event.seconds ?? 0
        default: break
        }
        apply(event)
    }

    /// The live effect of an event, then the event frame to every member here.
    private mutating func apply(_ event: ModerationEvent) {
        switch event.kind {
        case .memberMuted: if let user = event.user, let until = event.until { moderation.mutes[user] = until }
        case .memberUnmuted: if let user = event.user { moderation.mutes.removeValue(forKey: user) }
        case .memberBanned: if let user = event.user { moderation.bans.insert(user) }
        case .memberUnbanned: if let user = event.user { moderation.bans.remove(user) }
        case .slowMode: posterLimits.slowModeChanged()
        case .messageDeleted, .memberKicked: break
        }
        // Everyone hears it, the member acted on included, before their socket closes.
        fanOut.broadcast(encoder.encode(.moderation(event)))
        guard let user = event.user else { return }
        switch event.kind {
        case .memberKicked:
            closeConnections(of: user, code: .kicked, message: "a moderator removed you from room \(room.id); you may join again")
        case .memberBanned:
            closeConnections(of: user, code: .banned, message: Self.bannedMessage(room.id))
        default: break
        }
    }

    /// Closes every connection of `user` here: an error frame saying why, then a close frame (1008).
    private mutating func closeConnections(of user: String, code: ChatErrorCode, message: String) {
        for (id, member) in members where member.info.user == user { closeMember(id, code: code, message: message) }
    }

    private mutating func closeMember(_ id: UInt64, code: ChatErrorCode, message: String) {
        guard let member = members[id] else { return }
        leave(id)
        member.outlet.close(after: encoder.encode(.error(code: code, message: message, ref: nil)), reason: code.rawValue)
    }

    static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded(.up)) }
}
