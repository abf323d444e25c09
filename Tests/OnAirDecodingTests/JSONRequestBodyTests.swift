import Foundation
import OnAirDecoding
import Testing

/// Request bodies are refused with the field's name: not JSON (400), an unknown, missing, null
/// or mistyped field (422).
@Suite("JSONRequestBody")
struct JSONRequestBodyTests {
    struct Body: Decodable, Equatable {
        var url: String
        var events: [String]?
        var retries: Int?

        enum CodingKeys: String, CodingKey, CaseIterable { case url, events, retries }

        init(url: String, events: [String]? = nil, retries: Int? = nil) {
            self.url = url
            self.events = events
            self.retries = retries
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            events = try c.decodeIfPresent([String].self, forKey: .events)
            retries = try c.decodeIfPresent(Int.self, forKey: .retries)
        }
    }

    func decodingProblem(_ json: String) -> JSONRequestBody.Problem? {
        do {
            _ = try JSONRequestBody.decode(Body.self, from: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test("a good body decodes")
    func decodes() throws {
        let body = try JSONRequestBody.decode(Body.self, from: Data(#"{"url": "https://a.example", "events": ["x"]}"#.utf8))
        #expect(body == Body(url: "https://a.example", events: ["x"]))
    }

    @Test("each fault names the field", arguments: [
        (#"{"url": "u", "secrte": "x"}"#, false, #"unknown field "secrte" (known: url, events, retries)"#),
        (#"{"events": []}"#, false, #"missing field "url""#),
        (#"{"url": 42}"#, false, #"field "url" must be a string"#),
        (#"{"url": "u", "retries": "3"}"#, false, #"field "retries" must be a whole number"#),
        (#"{"url": "u", "events": "stream.ended"}"#, false, #"field "events" must be an array"#),
        (#"{"url": null}"#, false, #"field "url" must be a string, not null"#),
        (#"["url"]"#, false, "the body must be a JSON object"),
        (#"{"url": "#, true, "the body is not JSON"),
        ("", true, "the body is not JSON"),
    ])
    func faults(json: String, isSyntax: Bool, message: String) throws {
        let problem = try #require(decodingProblem(json))
        #expect(problem.isSyntax == isSyntax)
        #expect(problem.description == message)
    }
}
