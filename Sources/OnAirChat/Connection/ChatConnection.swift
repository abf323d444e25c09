import HummingbirdWebSocket
import Logging
import NIOCore
import OnAirChatProtocol
import OnAirTokenFormat

/// One client's WebSocket on `/rooms/{id}/ws`: reads its frames, enforces the limits (frame
/// and message token buckets, text rules, the join token or access token) and hands the rest
/// to the room. With an access token (JWT) the member's id and name are the token's.
/// Answers that concern only this client (errors, history, pong) are written here; everything
/// ordered with the room's messages is written by the room's worker.
struct ChatConnection {
    let roomID: String
    let services: ChatServices
    let outlet: ChatOutlet

    private let encoder: FrameEncoder
    private var frameBucket: TokenBucket
    private var messageBucket: TokenBucket
    private var room: ChatRoom?
    /// The access token this connection joined with (nil: open chat or a static token):
    /// who its member is and whether it may moderate.
    private var claims: AccessClaims?
    /// Frames refused in a row by the frame bucket; a client that keeps flooding is dropped.
    private var floodStrikes = 0

    init(roomID: String, services: ChatServices, outlet: ChatOutlet) {
        self.roomID = roomID
        self.services = services
        self.outlet = outlet
        encoder = FrameEncoder(maxFrameBytes: services.config.limits.maxFrameBytes)
        let limits = services.config.limits
        frameBucket = TokenBucket(capacity: limits.frameBurst, rate: limits.framesPerSecond)
        messageBucket = TokenBucket(capacity: limits.messageBurst, rate: limits.messagesPerSecond)
    }

    /// Runs until the client goes away; always leaves the room.
    mutating func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let high = services.config.limits.clientBufferBytes
        try? await outlet.channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: high / 2, high: high)).get()
        defer { room?.submit(.leave(memberID: outlet.id)) }
        for try await message in inbound.messages(maxSize: services.config.limits.maxFrameBytes) {
            guard admitFrame() else {
                floodStrikes += 1
                if floodStrikes > Int(services.config.limits.frameBurst) * 2 {
                    try await outbound.close(.policyViolation, reason: "too many frames")
                    return
                }
                continue
            }
            floodStrikes = 0
            switch message {
            case .text(let text):
                if try await !handle(text, outbound: outbound) { return }
            case .binary:
                reply(.error(code: .binaryUnsupported, message: "frames are JSON text", ref: nil))
            }
        }
    }

    private mutating func admitFrame() -> Bool {
        guard let wait = frameBucket.take(now: services.clock.monotonicSeconds()) else { return true }
        if floodStrikes == 0 {
            reply(.error(code: .rateLimited, message: "too many frames", ref: nil, retryAfterMS: milliseconds(wait)))
        }
        return false
    }

    /// Handles one text frame; false when the connection must end.
    private mutating func handle(_ text: String, outbound: WebSocketOutboundWriter) async throws -> Bool {
        let frame: ClientFrame
        do {
            frame = try ClientFrame.parse(text, maxPage: services.config.rooms.maxPage)
        } catch {
            reply(.error(code: error.code, message: error.message, ref: error.ref))
            return true
        }
        switch frame {
        case .join(let name, let token, let after, let ref):
            return try await join(name: name, token: token, after: after, ref: ref, outbound: outbound)
        case .send(let text, let ref):
            send(text, ref: ref)
        case .history(let page, let ref):
            await history(page, ref: ref)
        case .who(let ref):
            guard let room else { return refuseNotJoined(ref) }
            room.submit(.who(memberID: outlet.id, ref: ref))
        case .ping(let ref):
            reply(.pong(ref: ref))
        case .moderate(let action, let ref):
            await moderate(action, ref: ref)
        }
        return true
    }

    private mutating func join(name: String?, token: String?, after: Int64?, ref: String?,
                               outbound: WebSocketOutboundWriter) async throws -> Bool {
        guard room == nil else {
            reply(.error(code: .alreadyJoined, message: "this connection already joined room \(roomID)", ref: ref))
            return true
        }
        let identity: ChatAccess.Identity
        switch services.access.join(token: token, room: roomID) {
        case .success(let found): identity = found
        case .failure(let refusal):
            reply(.error(code: refusal.code, message: refusal.message, ref: ref, reason: refusal.reason))
            try await outbound.close(.policyViolation, reason: refusal.code.rawValue)
            return false
        }
        // With a token: its name (else its sub), never the frame's.
        var user: String? = nil
        var claimedName = name
        if case .token(let claims) = identity {
            user = claims.subject
            claimedName = claims.displayName
        }
        if let user {
            // Bans outlive connections, restarts and nodes: the store decides (the room re-checks).
            do {
                if try await services.store.isBanned(room: roomID, user: user) {
                    reply(.error(code: .banned, message: RoomWorker.bannedMessage(roomID), ref: ref))
                    try await outbound.close(.policyViolation, reason: ChatErrorCode.banned.rawValue)
                    return false
                }
            } catch {
                services.logger.error("ban check failed: \(error)")
                reply(.error(code: .internalError, message: "the room is unavailable, try again", ref: ref))
                return true
            }
        }
        guard let claimedName else {
            reply(.error(code: .badName, message: "join needs a name", ref: ref))
            return true
        }
        let displayName: String
        switch TextRules.displayName(claimedName, maxChars: services.config.limits.maxNameChars) {
        case .ok(let valid): displayName = valid
        case .refused(let code, let why):
            reply(.error(code: code, message: user == nil ? why : "the token's name: \(why)", ref: ref))
            return true
        }
        do {
            guard let room = try await services.directory.room(roomID, create: true) else { return false }
            var request = JoinRequest(outlet: outlet, name: displayName, user: user, after: after, ref: ref)
            if case .token(let claims) = identity {
                request.moderator = claims.allows(.moderate, in: roomID)
                self.claims = claims
            }
            guard room.submit(.join(request)) else { return false }
            self.room = room
        } catch {
            services.logger.error("room \(roomID) unavailable: \(error)")
            reply(.error(code: .internalError, message: "the room is unavailable, try again", ref: ref))
        }
        return true
    }

    private mutating func send(_ text: String, ref: String?) {
        guard let room else {
            _ = refuseNotJoined(ref)
            return
        }
        if let wait = messageBucket.take(now: services.clock.monotonicSeconds()) {
            reply(.error(code: .rateLimited, message: "slow down: at most \(services.config.limits.messagesPerSecond) messages per second",
                         ref: ref, retryAfterMS: milliseconds(wait)))
            return
        }
        switch TextRules.message(text, maxChars: services.config.limits.maxMessageChars) {
        case .ok(let valid): room.submit(.send(memberID: outlet.id, text: valid, ref: ref))
        case .refused(let code, let why): reply(.error(code: code, message: why, ref: ref))
        }
    }

    /// A moderator's frame: the token must grant `moderate` in this room; the room does the rest.
    private func moderate(_ action: ModerationAction, ref: String?) async {
        guard let room else {
            _ = refuseNotJoined(ref)
            return
        }
        guard let claims, claims.allows(.moderate, in: roomID) else {
            let why = claims == nil ? "moderating needs an access token with the moderate grant"
                                    : "the token does not grant moderate in room \(roomID)"
            reply(.error(code: .notModerator, message: why, ref: ref, reason: "missing_grant"))
            return
        }
        let result: Result<ModerationEvent, RoomRefusal>
        do {
            result = try await room.ask { .moderate(ModerationRequest(action: action, by: claims.subject), $0) }
        } catch {
            return
        }
        switch result {
        case .success(let event): reply(.done(ref: ref, event: event))
        case .failure(.notFound):
            reply(.error(code: .notFound, message: "room \(roomID) has no message \(action.messageID ?? 0)", ref: ref))
        case .failure(let other):
            reply(.error(code: .internalError, message: "not done (\(other)), try again", ref: ref))
        }
    }

    private func history(_ page: HistoryPage, ref: String?) async {
        do {
            let result = try await services.store.page(room: roomID, page)
            reply(.history(ref: ref, page: result))
        } catch {
            reply(.error(code: .internalError, message: "history unavailable", ref: ref))
        }
    }

    private func refuseNotJoined(_ ref: String?) -> Bool {
        reply(.error(code: .notJoined, message: "send {\"type\":\"join\",\"name\":...} first", ref: ref))
        return true
    }

    private func reply(_ frame: ServerFrame) {
        outlet.send(encoder.encode(frame))
    }

    private func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded(.up)) }
}
