import Logging
import NIOCore
import OnAirChatProtocol
import OnAirWebhooks

/// The single owner of one room's live state: its record, its members and their sockets.
/// Runs the room's commands one after another, so a message is stored (getting the next id)
/// and fanned out before the next command starts, and a joining client gets its history and
/// joins the fan-out in one step: nothing in between, nothing twice.
struct RoomWorker {
    let room: ChatRoom
    let store: any ChatStore
    let config: ChatConfig
    let logger: Logger
    let clock: WallClock
    let cluster: (any ChatClusterLink)?

    var record: RoomRecord
    var members: [UInt64: Member] = [:]
    /// Members on other nodes, by member id (kept current by ``refreshRemoteMembers()``).
    private var remoteMembers: [String: ServerFrame.Member] = [:]
    var fanOut = FanOut()
    private var presence = PresenceBatch()
    /// The newest system message fanned out (the `room.closed` / `room.opened` frames name it).
    private var lastSystemMessageID: Int64?
    let encoder: FrameEncoder
    /// Bans and mutes (``RoomWorker+Moderation``); slow mode is in `record`.
    var moderation = RoomModeration()
    /// Slow mode and the per-user bucket.
    var posterLimits: PosterLimits

    struct Member {
        var info: ServerFrame.Member
        var outlet: ChatOutlet
        /// The token grants `moderate` here.
        var moderator = false
    }

    init(room: ChatRoom, record: RoomRecord, store: any ChatStore, config: ChatConfig, logger: Logger, clock: WallClock,
         cluster: (any ChatClusterLink)? = nil) {
        self.room = room
        self.cluster = cluster
        self.record = record
        self.store = store
        self.config = config
        self.clock = clock
        encoder = FrameEncoder(maxFrameBytes: config.limits.maxFrameBytes)
        posterLimits = PosterLimits(rate: config.limits.userMessagesPerSecond, burst: config.limits.userMessageBurst)
        var logger = logger
        logger[metadataKey: "room"] = "\(room.id)"
        self.logger = logger
    }

    /// Handles commands until the room is finished.
    mutating func run() async {
        await reloadModeration()
        for await command in room.commands {
            await handle(command)
        }
        for member in members.values { member.outlet.disconnect() }
    }

    mutating func handle(_ command: RoomCommand) async {
        switch command {
        case .join(let request): await join(request)
        case .leave(let id): leave(id)
        case .send(let id, let text, let ref): await send(from: id, text: text, ref: ref)
        case .who(let id, let ref): who(id, ref: ref)
        case .post(let draft, let moderator, let reply): reply(await post(draft, moderator: moderator))
        case .moderate(let request, let reply): reply(await moderate(request))
        case .remoteModeration(let event): applyRemote(event)
        case .reloadModeration: await reloadModeration()
        case .streamEvent(let event, let delivery, let reply): reply(await apply(event, delivery))
        case .snapshot(let reply): reply(RoomSnapshot(record: record, presence: memberCount))
        case .flushPresence: flushPresence(scheduled: true)
        case .catchUp(let newestID): await catchUp(newestID: newestID)
        case .refreshPresence: await refreshRemoteMembers()
        case .republishPresence: for member in members.values { cluster?.memberJoined(room: room.id, member.info) }
        }
    }

    // MARK: - members

    private mutating func join(_ request: JoinRequest) async {
        let outlet = request.outlet
        // The connection asked the store; this closes the race with a ban made meanwhile.
        if let user = request.user, moderation.bans.contains(user) {
            outlet.close(after: encoder.encode(.error(code: .banned, message: Self.bannedMessage(room.id), ref: request.ref)),
                         reason: ChatErrorCode.banned.rawValue)
            return
        }
        let page: MessagePage
        // History ends at the newest message this worker has fanned out: newer ones (written on
        // another node) reach the joiner through the fan-out, once, in order.
        let newest = record.lastMessageID
        do {
            if let after = request.after {
                page = Self.bounded(try await store.page(room: room.id, .after(id: after, limit: config.rooms.resumeLimit)),
                                    newest: newest)
            } else {
                page = try await store.page(room: room.id, .before(id: newest + 1, limit: config.rooms.historyOnJoin))
            }
        } catch {
            logger.error("history read failed on join: \(error)")
            outlet.send(encoder.encode(.error(code: .internalError, message: "history unavailable, try again", ref: request.ref)))
            outlet.disconnect()
            return
        }
        let info = ServerFrame.Member(id: cluster.map { "c\(outlet.id)-\($0.nodeID)" } ?? "c\(outlet.id)", name: request.name, user: request.user)
        members[outlet.id] = Member(info: info, outlet: outlet, moderator: request.moderator)
        if let user = request.user { posterLimits.joined(user: user) }
        presence.joined(info)
        cluster?.memberJoined(room: room.id, info)
        let joined = ServerFrame.Joined(
            ref: request.ref, room: room.id, you: info, state: record.state, closedReason: record.closedReason,
            lastID: record.lastMessageID, messages: page.messages, more: page.more, resumed: request.after != nil,
            count: memberCount, members: memberList(), slowModeSeconds: record.slowModeSeconds)
        // The joined frame goes out before the socket joins the fan-out, on the same event loop queue,
        // so the next broadcast lands after it.
        outlet.send(encoder.encode(.joined(joined)))
        fanOut.add(outlet)
        flushPresence(scheduled: false)
    }

    /// An `after` page cut at `newest` (what lies beyond comes through the fan-out).
    static func bounded(_ page: MessagePage, newest: Int64) -> MessagePage {
        let kept = page.messages.prefix { $0.id <= newest }
        return kept.count == page.messages.count ? page : MessagePage(messages: Array(kept), more: false)
    }

    mutating func leave(_ id: UInt64) {
        guard let member = members.removeValue(forKey: id) else { return }
        posterLimits.left(user: member.info.user, connection: id)
        fanOut.remove(id)
        presence.left(member.info)
        cluster?.memberLeft(room: room.id, member.info)
        flushPresence(scheduled: false)
    }

    private func who(_ id: UInt64, ref: String?) {
        guard let member = members[id] else { return }
        let list = memberList()
        member.outlet.send(encoder.encode(.members(ref: ref, count: memberCount, members: list,
                                                   truncated: list.count < memberCount)))
    }

    /// Up to `member_list_limit` members (any of them: the count says how many there are).
    private func memberList() -> [ServerFrame.Member] {
        let limit = config.rooms.memberListLimit
        let local = members.values.prefix(limit).map(\.info)
        return local + remoteMembers.values.prefix(limit - local.count)
    }

    /// Members on every node of the room.
    private var memberCount: Int { members.count + remoteMembers.count }

    /// Re-reads who is in the room on other nodes and announces the difference.
    private mutating func refreshRemoteMembers() async {
        guard let cluster else { return }
        let current: [ServerFrame.Member]
        do {
            current = try await cluster.remoteMembers(of: room.id)
        } catch {
            logger.warning("presence of other nodes not read: \(error)")
            return
        }
        var fresh: [String: ServerFrame.Member] = [:]
        for member in current { fresh[member.id] = member }
        for (id, member) in remoteMembers where fresh[id] == nil { presence.left(member) }
        for (id, member) in fresh where remoteMembers[id] == nil { presence.joined(member) }
        remoteMembers = fresh
        flushPresence(scheduled: false)
    }

    /// Sends batched presence changes now if the last batch is old enough, else once the
    /// interval has passed (one timer at a time), so a crowd joining costs one frame per interval.
    private mutating func flushPresence(scheduled: Bool) {
        let now = clock.monotonicSeconds()
        let interval = Double(config.rooms.presenceIntervalMS) / 1000
        if scheduled { presence.timerPending = false }
        guard presence.hasChanges else { return }
        if let wait = presence.secondsUntilDue(now: now, interval: interval) {
            guard !presence.timerPending else { return }
            presence.timerPending = true
            let room = self.room
            Task {
                try? await Task.sleep(for: .seconds(wait))
                room.submit(.flushPresence)
            }
            return
        }
        let (joined, left) = presence.take(now: now)
        let limit = config.rooms.memberListLimit
        fanOut.broadcast(encoder.encode(.presence(count: memberCount, joined: Array(joined.prefix(limit)),
                                                  left: Array(left.prefix(limit)),
                                                  truncated: joined.count > limit || left.count > limit)))
    }

    // MARK: - messages

    private mutating func send(from id: UInt64, text: String, ref: String?) async {
        guard let member = members[id] else { return }
        guard record.state == .open else {
            member.outlet.send(encoder.encode(.error(code: .roomClosed, message: closedMessage, ref: ref)))
            return
        }
        let now = clock.milliseconds()
        let poster: PosterLimits.Poster = member.info.user.map { .user($0) } ?? .connection(id)
        if let refusal = admit(poster, user: member.info.user, moderator: member.moderator, now: now) {
            member.outlet.send(encoder.encode(errorFrame(refusal, ref: ref)))
            return
        }
        let draft = MessageDraft(room: room.id, kind: .user, name: member.info.name, text: text, at: now, userID: member.info.user)
        do {
            let message = try await store.append(draft)
            // Others' earlier messages first, then the sender's ack, then its message, as on one node.
            if message.id > record.lastMessageID + 1 { await fanOutStored(upTo: message.id - 1) }
            member.outlet.send(encoder.encode(.ack(ref: ref, id: message.id)))
            await fanOutWritten(message)
        } catch ChatStoreError.roomClosed(let current) {
            await adopt(current)
            member.outlet.send(encoder.encode(.error(code: .roomClosed, message: closedMessage, ref: ref)))
        } catch {
            logger.error("append failed: \(error)")
            member.outlet.send(encoder.encode(.error(code: .internalError, message: "the message was not stored (\(error)), try again",
                                                     ref: ref)))
        }
    }

    /// Fans out a message this node wrote, after any that other nodes wrote before it (their
    /// ids are below it and already committed), and rings the other nodes.
    private mutating func fanOutWritten(_ message: ChatMessage) async {
        if message.id > record.lastMessageID + 1 { await fanOutStored(upTo: message.id - 1) }
        record.lastMessageID = max(record.lastMessageID, message.id)
        if message.kind == .system { lastSystemMessageID = message.id }
        fanOut.broadcast(encoder.encode(.message(message)))
        cluster?.announce(room: room.id, newestID: message.id)
    }

    /// Fans out stored messages after the last one fanned out, up to `limit` (nil: all).
    private mutating func fanOutStored(upTo limit: Int64?) async {
        while limit.map({ record.lastMessageID < $0 }) ?? true {
            let page: MessagePage
            do {
                page = try await store.page(room: room.id, .after(id: record.lastMessageID, limit: 500))
            } catch {
                logger.error("catch-up read failed: \(error)")
                return
            }
            for message in page.messages where limit.map({ message.id <= $0 }) ?? true {
                fanOut.broadcast(encoder.encode(.message(message)))
                record.lastMessageID = message.id
                if message.kind == .system { lastSystemMessageID = message.id }
            }
            if !page.more { return }
        }
    }

    /// Another node changed the room: fan out its messages, then its new state.
    private mutating func catchUp(newestID: Int64?) async {
        if let newestID, newestID <= record.lastMessageID { return }
        let current: RoomRecord?
        do {
            current = try await store.room(room.id)
        } catch {
            logger.error("catch-up read failed: \(error)")
            return
        }
        if let current { await adopt(current) }
    }

    /// Takes `current` (read from the store) as the room's record: messages up to its newest
    /// are fanned out first, then a changed state is announced as this node would announce its own.
    private mutating func adopt(_ current: RoomRecord) async {
        await fanOutStored(upTo: current.lastMessageID)
        let before = record.state
        let fannedOut = record.lastMessageID
        record = current
        record.lastMessageID = max(fannedOut, current.lastMessageID)
        announceStateChange(from: before, message: nil)
    }

    private func announceStateChange(from before: RoomRecord.State, message: ChatMessage?) {
        if before == .open && record.state == .closed {
            logger.info("room closed: stream ended (\(record.closedReason ?? "unknown"))")
            fanOut.broadcast(encoder.encode(.roomClosed(room: room.id, reason: record.closedReason ?? "unknown",
                                                        messageID: message?.id ?? lastSystemMessageID)))
        } else if before == .closed && record.state == .open {
            logger.info("room reopened: stream started")
            fanOut.broadcast(encoder.encode(.roomOpened(room: room.id, messageID: message?.id ?? lastSystemMessageID)))
        }
    }

    private mutating func post(_ draft: MessageDraft, moderator: Bool) async -> Result<ChatMessage, RoomRefusal> {
        guard record.state == .open else { return .failure(.closed(reason: record.closedReason)) }
        if let user = draft.userID {
            if moderation.bans.contains(user) { return .failure(.banned) }
            if let refusal = admit(.user(user), user: user, moderator: moderator, now: draft.at) { return .failure(refusal) }
        }
        do {
            let message = try await store.append(draft)
            await fanOutWritten(message)
            return .success(message)
        } catch ChatStoreError.roomClosed(let current) {
            await adopt(current)
            return .failure(.closed(reason: record.closedReason))
        } catch {
            logger.error("bot append failed: \(error)")
            return .failure(.storeFailed("\(error)"))
        }
    }

    private var closedMessage: String {
        "the stream ended (\(record.closedReason ?? "unknown")): the room is read-only until it starts again"
    }

    // MARK: - stream events

    private mutating func apply(_ event: StreamEvent, _ delivery: WebhookDelivery) async -> Result<DeliveryOutcome, RoomRefusal> {
        let now = clock.milliseconds()
        let outcome: DeliveryOutcome
        do {
            outcome = try await store.deliver(delivery) { RoomLifecycle.decide(event, for: $0, now: now) }
        } catch {
            logger.error("webhook delivery \(delivery.id) not stored: \(error)")
            return .failure(.storeFailed("\(error)"))
        }
        guard case .applied(let updated, let message) = outcome else { return .success(outcome) }
        let before = record.state
        if let message {
            await fanOutWritten(message)
        } else if updated.lastMessageID > record.lastMessageID {
            await fanOutStored(upTo: updated.lastMessageID)
        }
        let fannedOut = record.lastMessageID
        record = updated
        record.lastMessageID = max(fannedOut, updated.lastMessageID)
        announceStateChange(from: before, message: message)
        return .success(outcome)
    }
}
