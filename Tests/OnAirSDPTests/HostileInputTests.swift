import OnAirSDP
import Testing

/// Parsers of network input must never trap (ARCHITECTURE.md habit 3): these feed them
/// garbage, truncations and mutations of real offers, and only require that they return or throw.
@Suite("Hostile input never traps")
struct HostileInputTests {
    /// xorshift64*: deterministic, so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2685821657736338717
        }
    }

    static let source = try? SDPNegotiator.answerIngest(offer: SessionDescription.parse(ChromiumOffers.whip),
                                                        local: TestValues.relayTransport).session

    /// Runs every parser of this module on the text.
    func exercise(_ text: String) {
        if let sdp = try? SessionDescription.parse(text) {
            _ = sdp.serialize()
            for media in sdp.media { _ = (media.payloadFormats, media.candidates, media.simulcast, media.rids, media.primarySSRC) }
            _ = try? SDPNegotiator.answerIngest(offer: sdp, local: TestValues.relayTransport)
            if let source = Self.source {
                _ = try? SDPNegotiator.answerEgress(offer: sdp, local: TestValues.relayTransport, source: source,
                                                    localSSRCs: TestValues.ssrcs)
            }
        }
        _ = try? SDPFragment.parse(text)
        _ = try? ICECandidate(attributeValue: text)
        _ = H264ProfileLevelID(text)
    }

    @Test func randomBytes() {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<300, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            exercise(String(decoding: bytes, as: UTF8.self))
            exercise("v=0\r\n" + String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func everyPrefixOfARealOffer() {
        let text = crlf(AiortcOffers.whip)
        let utf8 = Array(text.utf8)
        for end in stride(from: 0, through: utf8.count, by: 3) {
            exercise(String(decoding: utf8[..<end], as: UTF8.self))
        }
    }

    @Test func mutatedRealOffers() {
        var generator = Generator(state: 42)
        let alphabet = Array(" :=/;,~*-0123456789abcxyz\r\n\t\u{0}".utf8) + [0xC3, 0xA9, 0xFF]
        for source in [crlf(ChromiumOffers.whip), crlf(AiortcOffers.whip), crlf(ChromiumOffers.whep)] {
            let original = Array(source.utf8)
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[position] = alphabet.randomElement(using: &generator)!
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                    }
                }
                exercise(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    @Test func hugeLinesAndNumbers() throws {
        let long = String(repeating: "a", count: 200_000)
        let digits = String(repeating: "9", count: 5000)
        exercise("v=0\r\no=- 1 2 IN IP4 x\r\ns=" + long + "\r\n")
        exercise(SDPParseErrorTests.withLine5("a=ssrc:\(digits) cname:x"))
        exercise(SDPParseErrorTests.withLine5("a=rtpmap:\(digits) x/\(digits)/\(digits)"))
        exercise(SDPParseErrorTests.withLine5("a=candidate:\(long)"))
        exercise(SDPParseErrorTests.withLine5("a=simulcast:send " + String(repeating: "~;,", count: 10000)))
        exercise(SDPParseErrorTests.withLine5("a=group:BUNDLE " + String(repeating: "0 ", count: 20000)))
        let session = try SessionDescription.parse("v=0\r\no=- \(digits) \(digits) IN IP4 x\r\ns=" + long + "\r\n")
        #expect(session.origin.sessionID == digits)
    }

    @Test func oversizedInputIsRefused() {
        let text = "v=0\r\n" + String(repeating: "a=x\r\n", count: SessionDescription.maximumLength / 5 + 1)
        let error = #expect(throws: SDPError.self) { try SessionDescription.parse(text) }
        #expect(error?.reason.hasPrefix("session description is") == true)
        #expect(throws: SDPError.self) { try SDPFragment.parse(String(repeating: "a=x\r\n", count: 20000)) }
    }

    @Test func missingFieldsInNegotiationDoNotTrap() throws {
        // m= lines with no formats, no rtpmap for dynamic payload types, a BUNDLE of unknown mids.
        let text = offer(sessionLines: ["a=group:BUNDLE 7 8 9"], media: [
            ["m=video 9 UDP/TLS/RTP/SAVPF"] + transportLines + ["a=sendonly"],
            ["m=audio 9 UDP/TLS/RTP/SAVPF 96 97"] + transportLines + ["a=sendonly", "a=fmtp:96 apt=97"],
        ])
        let sdp = try SessionDescription.parse(text)
        #expect(throws: NegotiationError.self) { try SDPNegotiator.answerIngest(offer: sdp, local: TestValues.relayTransport) }
    }
}
