import Testing
@testable import OnAirChat
import OnAirChatProtocol

@Suite("Client frames")
struct ClientFrameTests {
    func parse(_ text: String) throws(ClientFrame.Problem) -> ClientFrame {
        try ClientFrame.parse(text, maxPage: 100)
    }

    func problem(_ text: String) -> ClientFrame.Problem? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test("join, send, who, ping")
    func basics() throws {
        #expect(try parse(#"{"type":"join","name":"ada","token":"t","after":41,"ref":"j"}"#)
                == .join(name: "ada", token: "t", after: 41, ref: "j"))
        #expect(try parse(#"{"type":"join","name":"ada"}"#) == .join(name: "ada", token: nil, after: nil, ref: nil))
        // An access token names the member: the name may be left out.
        #expect(try parse(#"{"type":"join","token":"a.b.c"}"#) == .join(name: nil, token: "a.b.c", after: nil, ref: nil))
        #expect(try parse(#"{"type":"send","text":"hi","ref":"m1","extra":{"ignored":true}}"#) == .send(text: "hi", ref: "m1"))
        #expect(try parse(#"{"type":"who"}"#) == .who(ref: nil))
        #expect(try parse(#"{"type":"ping","ref":"p"}"#) == .ping(ref: "p"))
    }

    @Test("history pages, limits capped to max_page")
    func history() throws {
        #expect(try parse(#"{"type":"history"}"#) == .history(.latest(limit: 100), ref: nil))
        #expect(try parse(#"{"type":"history","before":120,"limit":20}"#) == .history(.before(id: 120, limit: 20), ref: nil))
        #expect(try parse(#"{"type":"history","after":7,"limit":5000}"#) == .history(.after(id: 7, limit: 100), ref: nil))
        #expect(try parse(#"{"type":"history","after":7,"limit":-3}"#) == .history(.after(id: 7, limit: 1), ref: nil))
        #expect(problem(#"{"type":"history","after":1,"before":9,"ref":"h"}"#)?.code == .badRequest)
        #expect(problem(#"{"type":"history","after":1,"before":9,"ref":"h"}"#)?.ref == "h")
    }

    @Test("not JSON objects are bad_json", arguments: ["not json", "", "[1,2]", "42", "\"join\"", "{\"type\":", "null"])
    func badJSON(text: String) {
        #expect(problem(text)?.code == .badJSON)
    }

    @Test("wrong shapes are bad_request, naming the field")
    func badShapes() {
        #expect(problem(#"{"name":"ada"}"#)?.code == .badRequest)
        #expect(problem(#"{"type":"dance"}"#)?.code == .badRequest)
        let wrongType = problem(#"{"type":"send","text":5}"#)
        #expect(wrongType?.code == .badRequest)
        #expect(wrongType?.message.contains("text") == true)
        #expect(problem(#"{"type":"join","name":"a","after":-1}"#)?.code == .badRequest)
        #expect(problem(#"{"type":"join"}"#)?.code == .badName)
        #expect(problem(#"{"type":"send","ref":"r"}"#) == ClientFrame.Problem(code: .emptyMessage, message: "send needs a text", ref: "r"))
    }
}

@Suite("Text rules")
struct TextRulesTests {
    @Test("names: trimmed, 1...max scalars, one line")
    func names() {
        #expect(TextRules.displayName("  ada \n", maxChars: 5) == .ok("ada"))
        #expect(TextRules.displayName("   ", maxChars: 5) == .refused(.badName, "the name is empty"))
        #expect(TextRules.displayName("abcdef", maxChars: 5) != .ok("abcdef"))
        #expect(TextRules.displayName("a\nb", maxChars: 5) != .ok("a\nb"))
        #expect(TextRules.displayName("ü🎈", maxChars: 2) == .ok("ü🎈"))
    }

    @Test("messages: newlines kept, other control characters and overlong text refused")
    func messages() {
        #expect(TextRules.message(" two\nlines\t ", maxChars: 20) == .ok("two\nlines"))
        #expect(TextRules.message("", maxChars: 20) == .refused(.emptyMessage, "the message is empty"))
        guard case .refused(.tooLong, _) = TextRules.message(String(repeating: "x", count: 21), maxChars: 20) else {
            Issue.record("21 characters passed a 20 limit")
            return
        }
        guard case .refused(.badRequest, _) = TextRules.message("bell\u{7}", maxChars: 20) else {
            Issue.record("a control character passed")
            return
        }
    }
}
