import FuzzSupport
import OnAirSTUN
import OnAirWire

// fuzz-stun: one input is one UDP datagram as it reaches the ICE port.
//
// 1. The parser and every attribute accessor (RFC 8489 §6.3, §14), plus round trips:
//    whatever parses must encode, and the encoding must parse back to the same message.
// 2. The ICE-lite agent (what the relay runs) on the raw datagram, and on the same message
//    re-signed with the agent's password, so the fuzzer reaches the code behind
//    MESSAGE-INTEGRITY (username, role conflict, nomination) without forging HMACs.
// 3. The controlling checker (our WHIP client) on the message turned into a signed response
//    to its outstanding check, so the response handling is reached the same way.

private let localUfrag = "rlyU"
private let localPassword = "relaypasswordrelaypassword"
private let remoteUfrag = "peer"
private let remotePassword = "peerpasswordpeerpassword12"
private let peer = TransportAddress(ip: .v4(0xC000_0201), port: 50_000)
private var otherPeer: TransportAddress { TransportAddress(ip: .v6(IPv6Address([0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [1])), port: 3478) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = FuzzInput(data, size).bytes
    _ = STUNMessage.isSTUN(bytes)
    _ = ICELiteAgent.usernameFragments(of: bytes)
    _ = STUNMessage.verifyFingerprint(bytes)
    _ = STUNMessage.verifyMessageIntegrity(bytes, key: Array(localPassword.utf8))

    var agent = ICELiteAgent(localUfrag: localUfrag, localPassword: localPassword,
                             remoteUfrag: size % 2 == 0 ? remoteUfrag : nil, remotePassword: remotePassword)
    check(agent.receive(bytes, from: peer, now: .seconds(1)))

    guard let message = try? STUNMessage.parse(bytes) else { return 0 }
    exerciseAccessors(message)
    // encode() requires the message to fit the 16-bit length with MESSAGE-INTEGRITY (24) and
    // FINGERPRINT (8) added; a parsed message can be up to 65535 bytes long already.
    let body = message.attributes.reduce(0) { $0 + 4 + ($1.value.count + 3) / 4 * 4 }
    guard body + 32 <= Int(UInt16.max) else { return 0 }

    let plain = message.encode(integrityKey: nil, fingerprint: false)
    let reparsed = try? STUNMessage.parse(plain)
    fuzzCheck(reparsed != nil, "encode() of a parsed message does not parse: \(message)")

    let signed = message.encode(integrityKey: Array(localPassword.utf8), fingerprint: true, paddingByte: 0x20)
    fuzzCheck(STUNMessage.verifyMessageIntegrity(signed, key: Array(localPassword.utf8)), "own MESSAGE-INTEGRITY does not verify")
    fuzzCheck(STUNMessage.verifyFingerprint(signed), "own FINGERPRINT does not verify")
    check(agent.receive(signed, from: peer, now: .seconds(2)))
    check(agent.receive(signed, from: otherPeer, now: .seconds(40)))
    _ = agent.consentExpired(now: .seconds(100))

    exerciseChecker(with: message)
    return 0
}

private func exerciseAccessors(_ message: STUNMessage) {
    _ = message.description
    _ = message.username
    _ = message.software
    _ = message.priority
    _ = message.useCandidate
    _ = message.iceControlled
    _ = message.iceControlling
    _ = message.xorMappedAddress
    _ = message.mappedAddress
    _ = message.errorCode
    _ = message.unknownAttributes
    _ = message.fingerprint
    _ = message.unknownComprehensionRequiredAttributes()
    for attribute in message.attributes {
        _ = try? attribute.decodeString()
        _ = try? attribute.decodeAddress()
        _ = try? attribute.decodeXORAddress(transactionID: message.transactionID)
        _ = try? attribute.decodeErrorCode()
        _ = try? attribute.decodeAttributeTypes()
    }
}

/// Whatever the agent answers must itself be a well-formed STUN message.
private func check(_ result: ICEReceiveResult) {
    guard let datagram = result.datagram else { return }
    fuzzCheck(STUNMessage.isSTUN(datagram.bytes), "agent answered with a non-STUN datagram")
    fuzzCheck((try? STUNMessage.parse(datagram.bytes)) != nil, "agent's answer does not parse")
}

private func exerciseChecker(with message: STUNMessage) {
    var checker = ICEControllingChecker(localUfrag: remoteUfrag, localPassword: remotePassword,
                                        remoteUfrag: localUfrag, remotePassword: localPassword,
                                        remoteCandidates: [peer], tieBreaker: 42)
    var now = MonoTime.seconds(1)
    for _ in 0..<3 {
        guard let request = checker.poll(now: now).first,
              let parsed = try? STUNMessage.parse(request.bytes) else { return }
        // The fuzzer's message becomes the answer to our check: its class, attributes and
        // signature, with our transaction ID.
        var answer = message
        answer.transactionID = parsed.transactionID
        let response = answer.encode(integrityKey: Array(localPassword.utf8), fingerprint: true)
        _ = checker.receive(response, from: request.address, now: now)
        _ = checker.receive(message.encode(integrityKey: nil, fingerprint: false), from: request.address, now: now)
        now = now + .milliseconds(600)
        _ = checker.consentExpired(now: now)
    }
}
