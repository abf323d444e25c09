import Foundation
import Testing
@testable import OnAirChat
import OnAirChatProtocol

/// Moderators' frames (``ModerationAction``) and the per-user post bounds (``PosterLimits``), without sockets.
@Suite("Moderation frames and per-user limits")
struct ModerationFrameTests {
    func parse(_ text: String) throws(ClientFrame.Problem) -> ClientFrame {
        try ClientFrame.parse(text, maxPage: 100)
    }

    func problem(_ text: String) -> ClientFrame.Problem? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test("each action is one frame")
    func actions() throws {
        #expect(try parse(#"{"type":"delete","id":17,"ref":"d"}"#) == .moderate(.delete(messageID: 17), ref: "d"))
        #expect(try parse(#"{"type":"mute","user":"bob","seconds":300}"#) == .moderate(.mute(user: "bob", seconds: 300), ref: nil))
        #expect(try parse(#"{"type":"mute","user":"bob","seconds":0}"#) == .moderate(.mute(user: "bob", seconds: 0), ref: nil))
        #expect(try parse(#"{"type":"kick","user":"bob"}"#) == .moderate(.kick(user: "bob"), ref: nil))
        #expect(try parse(#"{"type":"ban","user":"bob","by":"someone else"}"#) == .moderate(.ban(user: "bob"), ref: nil))
        #expect(try parse(#"{"type":"unban","user":"bob"}"#) == .moderate(.unban(user: "bob"), ref: nil))
        #expect(try parse(#"{"type":"slow_mode","seconds":10}"#) == .moderate(.slowMode(seconds: 10), ref: nil))
    }

    @Test("bad actions are bad_request with the ref", arguments: [
        #"{"type":"delete","ref":"r"}"#, #"{"type":"delete","id":0,"ref":"r"}"#, #"{"type":"mute","user":"bob","ref":"r"}"#,
        #"{"type":"mute","user":"bob","seconds":-1,"ref":"r"}"#, #"{"type":"mute","user":"bob","seconds":604801,"ref":"r"}"#,
        #"{"type":"kick","ref":"r"}"#, #"{"type":"ban","user":"","ref":"r"}"#, #"{"type":"slow_mode","ref":"r"}"#,
    ])
    func badActions(_ text: String) {
        let found = problem(text)
        #expect(found?.code == .badRequest && found?.ref == "r", "\(String(describing: found))")
    }

    @Test("user ids are capped; a wrongly typed field names itself")
    func limits() {
        let long = String(repeating: "u", count: ModerationAction.maxUserChars + 1)
        #expect(problem(#"{"type":"ban","user":"\#(long)"}"#)?.code == .badRequest)
        #expect(problem(#"{"type":"ban","user":7}"#)?.message.contains("user") == true)
        #expect(problem(#"{"type":"nuke"}"#)?.message.contains("slow_mode") == true)
    }

    @Test("per-user bucket: two connections of one user share it; others have their own")
    func userBucket() {
        var limits = PosterLimits(rate: 1, burst: 3)
        limits.joined(user: "ada")
        limits.joined(user: "ada")
        for _ in 0..<3 { #expect(limits.admit(.user("ada"), slowModeSeconds: 0, exempt: false, now: 10) == nil) }
        #expect(limits.admit(.user("ada"), slowModeSeconds: 0, exempt: false, now: 10) == .rateLimited(wait: 1))
        #expect(limits.admit(.user("bob"), slowModeSeconds: 0, exempt: false, now: 10) == nil)
        #expect(limits.admit(.user("ada"), slowModeSeconds: 0, exempt: false, now: 11) == nil)
        // The bucket goes with the user's last connection.
        limits.left(user: "ada", connection: 1)
        #expect(limits.admit(.user("ada"), slowModeSeconds: 0, exempt: false, now: 11) == .rateLimited(wait: 1))
        limits.left(user: "ada", connection: 2)
        #expect(limits.admit(.user("ada"), slowModeSeconds: 0, exempt: false, now: 11) == nil)
    }

    @Test("slow mode: one post per interval per poster; moderators exempt; a change forgets earlier posts")
    func slowMode() {
        var limits = PosterLimits(rate: 100, burst: 100)
        #expect(limits.admit(.connection(7), slowModeSeconds: 10, exempt: false, now: 0) == nil)
        #expect(limits.admit(.connection(7), slowModeSeconds: 10, exempt: false, now: 4) == .slowMode(wait: 6))
        #expect(limits.admit(.connection(8), slowModeSeconds: 10, exempt: false, now: 4) == nil)
        #expect(limits.admit(.connection(7), slowModeSeconds: 10, exempt: false, now: 10) == nil)
        #expect(limits.admit(.user("mod"), slowModeSeconds: 10, exempt: true, now: 10) == nil)
        #expect(limits.admit(.user("mod"), slowModeSeconds: 10, exempt: true, now: 10) == nil)
        limits.slowModeChanged()
        #expect(limits.admit(.connection(7), slowModeSeconds: 10, exempt: false, now: 11) == nil)
    }

    @Test("the cluster's moderation notification: others' decoded, own skipped, bad ones malformed")
    func notification() throws {
        let mute = ModerationEvent(kind: .memberMuted, room: "42", user: "b ob", seconds: 60, until: 1_700_000_060_000, by: "mod",
                                   at: 1_700_000_000_000)
        let json = String(decoding: try JSONEncoder().encode(mute), as: UTF8.self)
        #expect(json.contains(#""until":"2023-11-14T22:14:20"#) && json.contains(#""type":"member.muted""#), "\(json)")
        #expect(PostgresClusterLink.parse("m n2 42 \(json)", thisNode: "n1") == .change(.moderation(mute)))
        #expect(PostgresClusterLink.parse("m n1 42 \(json)", thisNode: "n1") == .own)
        #expect(PostgresClusterLink.parse("m n2 43 \(json)", thisNode: "n1") == .malformed)
        #expect(PostgresClusterLink.parse("m n2 42 {", thisNode: "n1") == .malformed)
        #expect(PostgresClusterLink.parse("7 42", thisNode: "n1") == .change(.room("42", newestID: 7)))
    }
}
