import FuzzSupport
import OnAirSTUN
import OnAirWire

// fuzz-turn: what a TURN server sends `broadcast` (RFC 8656). The first byte picks how the rest
// is read: as the byte stream of a TCP/TLS connection to the server (§12.5), split two ways
// by the second and third bytes; or as one UDP datagram.
//
// 1. TURNStreamDeframer: the same messages whatever the split; none longer than its limit;
//    every ChannelData message it yields parses (ChannelData.parse) within its bytes.
// 2. Every message goes to a TURNClient whose Allocate is outstanding, its transaction ID
//    patched in so the answer is taken; and, re-signed with the long-term key a scripted 401
//    gave it, to a client that holds a credential, so the fuzzer reaches the success paths
//    (XOR-RELAYED-ADDRESS, LIFETIME, 438) behind MESSAGE-INTEGRITY without forging HMACs.

private let username = "1790000000:42"
private let password = "turn-rest-password"
private let realm = "onair.test"
private let peer = TransportAddress(ip: .v4(0xC612_0001), port: 10_000)

/// A client with its first Allocate out; the bytes of that request.
private func allocating(now: MonoTime) -> (TURNClient, [UInt8]) {
    var client = TURNClient(username: username, password: password, reliable: true)
    client.allocate(now: now)
    client.permit([peer], now: now)
    return (client, client.poll(now: now).first ?? [])
}

/// A client that took a 401 with REALM and NONCE and sent its signed Allocate; that request.
private func credentialed(now: MonoTime) -> (TURNClient, [UInt8]) {
    var (client, request) = allocating(now: now)
    guard request.count >= 20 else { return (client, []) }
    let challenge = STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .errorResponse),
                                transactionID: Array(request[8..<20]),
                                attributes: [.errorCode(STUNErrorCode(code: 401, reason: "Unauthorized")), .realm(realm), .nonce("n0nce")])
    _ = client.receive(challenge.encode(integrityKey: nil, fingerprint: false), now: now)
    request = client.poll(now: now).first ?? []
    return (client, request)
}

private func answer(_ message: [UInt8], asAnswerTo request: [UInt8], signed: Bool) -> [UInt8]? {
    guard request.count >= 20, var parsed = try? STUNMessage.parse(message) else { return nil }
    parsed.transactionID = Array(request[8..<20])
    parsed.attributes.removeAll { $0.type == .messageIntegrity || $0.type == .fingerprint }
    let key = STUNLongTermCredential.key(username: username, realm: realm, password: password)
    return parsed.encode(integrityKey: signed ? key : nil, fingerprint: false)
}

private func exercise(_ message: [UInt8], now: MonoTime) {
    if let first = message.first, ChannelData.isChannelData(firstByte: first) {
        message.withUnsafeBytes { _ = ChannelData.parse($0) }
        return
    }
    var (plain, request) = allocating(now: now)
    _ = plain.receive(message, now: now)
    if message.count >= 20 {
        var patched = message
        patched.replaceSubrange(8..<20, with: request.count >= 20 ? Array(request[8..<20]) : Array(repeating: 0, count: 12))
        _ = plain.receive(patched, now: now)
        _ = plain.poll(now: now + .seconds(5))
    }
    var (client, signedRequest) = credentialed(now: now)
    if let signed = answer(message, asAnswerTo: signedRequest, signed: true) {
        _ = client.receive(signed, now: now)
        _ = client.poll(now: now + .seconds(600))
        _ = client.channel(for: peer)
        _ = client.isPermitted(peer)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let now = MonoTime.now()
    guard input.byte() & 1 == 1 else {
        exercise(input.rest(), now: now)
        return 0
    }
    var seed = UInt64(input.uint16()) | 1
    let stream = input.rest()
    let limit = 2_048

    func deframe(split: Bool) -> (messages: [[UInt8]], broken: Bool) {
        var deframer = TURNStreamDeframer(maximumMessage: limit)
        var messages: [[UInt8]] = []
        var start = 0
        while start < stream.count {
            var end = stream.count
            if split {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                end = min(stream.count, start + 1 + Int(seed >> 33) % 300)
            }
            stream[start..<end].withUnsafeBytes { deframer.feed($0) { messages.append(Array($0)) } }
            start = end
        }
        return (messages, deframer.isBroken)
    }

    let whole = deframe(split: false)
    let pieces = deframe(split: true)
    fuzzCheck(whole.messages == pieces.messages && whole.broken == pieces.broken,
              "a split changed what came out: \(whole.messages.count) / \(pieces.messages.count) messages")
    for message in whole.messages {
        fuzzCheck(message.count >= 4 && message.count <= limit, "a message of \(message.count) bytes, limit \(limit)")
        if ChannelData.isChannelData(firstByte: message[0]) {
            let parsed = message.withUnsafeBytes { ChannelData.parse($0) }
            fuzzCheck(parsed.map { $0.data.upperBound == message.count } == true, "a deframed ChannelData message does not parse whole")
        }
        exercise(message, now: now)
    }
    return 0
}
