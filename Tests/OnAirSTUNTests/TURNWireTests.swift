import OnAirWire
import Testing
@testable import OnAirSTUN

@Suite("TURN on the wire: long-term key, ChannelData, stream framing, URIs")
struct TURNWireTests {
    /// RFC 5769 §2.4 (errata 3435 for the SASLprep'd password): the key is
    /// MD5("マトリックス:example.org:TheMatrIX"), and the request re-encoded with our credential's
    /// attributes and key is the vector byte for byte.
    @Test("RFC 5769 §2.4: long-term key and the signed request")
    func longTermVector() throws {
        let username = "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}"
        let credential = STUNLongTermCredential(username: username, password: "TheMatrIX", realm: "example.org",
                                                nonce: "f//499k954d6OL34oL9FSTvy64sA")
        #expect(credential.key == RFC5769.longTermKey)
        let parsed = try STUNMessage.parse(RFC5769.longTermRequest)
        // The vector's order is USERNAME, NONCE, REALM; ours USERNAME, REALM, NONCE.
        let byType = Dictionary(uniqueKeysWithValues: credential.attributes.map { ($0.type, $0) })
        let rebuilt = STUNMessage(type: .bindingRequest, transactionID: parsed.transactionID,
                                  attributes: [byType[.username]!, byType[.nonce]!, byType[.realm]!])
        #expect(Hex.encode(rebuilt.encode(integrityKey: credential.key, fingerprint: false)) == Hex.encode(RFC5769.longTermRequest))
    }

    @Test("ChannelData: header, length, padding only on streams; bad numbers and short data refused")
    func channelData() {
        let data: [UInt8] = [1, 2, 3, 4, 5]
        let udp = ChannelData.encode(channel: 0x4001, data: data, padded: false)
        #expect(udp == [0x40, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])
        let tcp = ChannelData.encode(channel: 0x4FFF, data: data, padded: true)
        #expect(tcp.count == 12 && tcp.suffix(3) == [0, 0, 0])
        udp.withUnsafeBytes { raw in
            let parsed = ChannelData.parse(raw)
            #expect(parsed?.channel == 0x4001 && parsed?.data == 4..<9)
        }
        tcp.withUnsafeBytes { #expect(ChannelData.parse($0)?.data == 4..<9) }
        ([0x50, 0x00, 0x00, 0x01, 9] as [UInt8]).withUnsafeBytes { #expect(ChannelData.parse($0) == nil) }  // 0x5000 reserved
        ([0x40, 0x00, 0x00, 0x08, 9] as [UInt8]).withUnsafeBytes { #expect(ChannelData.parse($0) == nil) }  // runs past the end
        #expect(ChannelData.isChannelData(firstByte: 0x40) && ChannelData.isChannelData(firstByte: 0x4F))
        #expect(!ChannelData.isChannelData(firstByte: 0x00) && !ChannelData.isChannelData(firstByte: 0x80))
        #expect((0..<8).map(ChannelData.streamPadding) == [0, 3, 2, 1, 0, 3, 2, 1])
    }

    @Test("a TURN TCP stream splits into STUN and ChannelData messages whatever the read sizes", arguments: [1, 3, 7, 64])
    func streamDeframing(chunk: Int) {
        let stun = STUNMessage(type: .bindingRequest, transactionID: Array(repeating: 7, count: 12),
                               attributes: [.software("x")]).encode(integrityKey: nil, fingerprint: true)
        let first = ChannelData.encode(channel: 0x4000, data: [1, 2, 3], padded: true)
        let second = ChannelData.encode(channel: 0x4001, data: Array(repeating: 9, count: 8), padded: true)
        let stream = first + stun + second
        var deframer = TURNStreamDeframer()
        var messages: [[UInt8]] = []
        for start in stride(from: 0, to: stream.count, by: chunk) {
            stream[start..<min(stream.count, start + chunk)].withUnsafeBytes { raw in
                deframer.feed(raw) { messages.append(Array($0)) }
            }
        }
        #expect(messages == [Array(first.prefix(7)), stun, second])
        #expect(!deframer.isBroken)
        ([0x80, 0, 0, 0] as [UInt8]).withUnsafeBytes { raw in deframer.feed(raw) { _ in Issue.record("garbage framed") } }
        #expect(deframer.isBroken)
    }

    @Test("turn:/turns: URIs (RFC 7065 §3)", arguments: [
        ("turn:127.0.0.1:3478?transport=udp", TURNServerURI(host: "127.0.0.1", port: 3478, transport: .udp)),
        ("turn:turn.example?transport=tcp", TURNServerURI(host: "turn.example", port: 3478, transport: .tcp)),
        ("TURN:[2001:db8::1]:5000", TURNServerURI(host: "2001:db8::1", port: 5000, transport: .udp)),
        ("turns:turn.example", TURNServerURI(host: "turn.example", port: 5349, transport: .tls)),
        ("turns:turn.example:443?transport=tcp", TURNServerURI(host: "turn.example", port: 443, transport: .tls)),
    ])
    func uris(_ text: String, _ expected: TURNServerURI) {
        #expect(TURNServerURI(text) == expected)
        #expect(TURNServerURI(expected.description) == expected)
    }

    @Test("not TURN URIs", arguments: ["stun:127.0.0.1:3478", "turn:", "turn:h:0", "turn:h:99999", "turn:h?transport=sctp",
                                       "turns:h?transport=udp", "turn:[::1", "http://h/"])
    func notURIs(_ text: String) {
        #expect(TURNServerURI(text) == nil)
    }
}
