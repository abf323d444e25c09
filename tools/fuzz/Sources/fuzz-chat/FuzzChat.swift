import FuzzSupport
import OnAirChatProtocol

// fuzz-chat: one input is one WebSocket text message from a chat client, as the chat reads
// it: ClientFrame.parse (one JSON object with a type), then the text rules the connection
// applies to a join's name and a send's text; moderators' frames (delete, mute, kick, ban,
// unban, slow_mode) are read by the same parser.
//
// Invariants: a parse either gives a frame or a problem with a code; a history page's limit
// is within 1...maxPage; what the text rules accept is non-empty, within its length, and
// accepted again unchanged.

private let maxPage = 200

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let frame: ClientFrame
    do {
        frame = try ClientFrame.parse(text, maxPage: maxPage)
    } catch {
        fuzzCheck(!error.message.isEmpty, "a problem without a message")
        return 0
    }
    switch frame {
    case .join(let name, let token, let after, _):
        fuzzCheck(after.map { $0 >= 0 } ?? true, "a join resumed after a negative id")
        // A join names someone, or carries an access token that does.
        fuzzCheck(name != nil || token != nil, "a join with neither a name nor a token")
        if let name {
            checkRule(TextRules.displayName(name, maxChars: 40), maxChars: 40) { TextRules.displayName($0, maxChars: 40) }
        }
    case .send(let text, _):
        checkRule(TextRules.message(text, maxChars: 500), maxChars: 500) { TextRules.message($0, maxChars: 500) }
    case .history(let page, _):
        fuzzCheck((1...maxPage).contains(page.limit), "a history limit outside 1...\(maxPage)")
    case .who, .ping:
        break
    case .moderate(let action, _):
        // A moderator's frame names a user (1...maxUserChars), a message id >= 1 or an interval in range.
        if let user = action.user {
            fuzzCheck(!user.isEmpty && user.unicodeScalars.count <= ModerationAction.maxUserChars, "a moderation frame with a bad user id")
        }
        switch action {
        case .delete(let id): fuzzCheck(id >= 1, "a delete of message id < 1")
        case .mute(_, let seconds), .slowMode(let seconds):
            fuzzCheck((0...ModerationAction.maxSeconds).contains(seconds), "an interval outside 0...maxSeconds")
        case .kick, .ban, .unban: break
        }
        fuzzCheck(ModerationAction.types.contains(action.type), "an action of an unlisted type")
    }
    return 0
}

private func checkRule(_ verdict: TextRules.Verdict, maxChars: Int, again: (String) -> TextRules.Verdict) {
    guard case .ok(let accepted) = verdict else { return }
    fuzzCheck(!accepted.isEmpty && accepted.unicodeScalars.count <= maxChars, "accepted text outside the rules")
    fuzzCheck(again(accepted) == .ok(accepted), "accepted text is not accepted again unchanged")
}
