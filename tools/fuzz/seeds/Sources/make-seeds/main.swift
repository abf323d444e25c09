import Foundation
import OnAirCrypto
import OnAirDTLS
import OnAirRTP
import OnAirSTUN
import OnAirWire

// make-seeds <corpus dir>: writes <dir>/{stun,rtp,rtcp,dtls,srtp}/<name> (overwriting).
// Input formats are the harnesses' (Sources/fuzz-*/Fuzz*.swift headers).

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: make-seeds <corpus dir>\n".utf8))
    exit(2)
}
let corpus = URL(fileURLWithPath: CommandLine.arguments[1])

func write(_ target: String, _ name: String, _ bytes: [UInt8]) {
    let dir = corpus.appendingPathComponent(target)
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    try! Data(bytes).write(to: dir.appendingPathComponent(name))
}

func chunks(_ list: [[UInt8]]) -> [UInt8] {
    list.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
}

func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }

// MARK: STUN: ICE checks and answers for the harness's agent. (The RFC 5769 and aioice
// vectors are copied from Tests/OnAirSTUNTests by copy-fixtures.py.)

// The harness's credentials (fuzz-stun): local rlyU / relaypasswordrelaypassword, peer "peer".
let relayKey = Array("relaypasswordrelaypassword".utf8)
let tid: [UInt8] = Array(0x10..<0x1C)
let peerV4 = TransportAddress(ip: .v4(0xC000_0201), port: 50_000)
let peerV6 = TransportAddress(host: "2001:db8::7", port: 61_000)!
func check(_ extra: [STUNAttribute], username: String = "rlyU:peer") -> STUNMessage {
    STUNMessage(type: .bindingRequest, transactionID: tid,
                attributes: [.username(username), .priority(0x6E7F_1EFF), .iceControlling(tieBreaker: 0x0102_0304_0506_0708)] + extra)
}
write("stun", "ice-check", check([]).encode(integrityKey: relayKey, fingerprint: true))
write("stun", "ice-check-nominate", check([.useCandidate]).encode(integrityKey: relayKey, fingerprint: true))
write("stun", "ice-check-controlled", STUNMessage(type: .bindingRequest, transactionID: tid, attributes: [
    .username("rlyU:peer"), .priority(1), .iceControlled(tieBreaker: 9)]).encode(integrityKey: relayKey, fingerprint: true))
write("stun", "ice-check-unknown-attribute",
      check([STUNAttribute(type: STUNAttributeType(rawValue: 0x0042), value: [1, 2, 3])]).encode(integrityKey: relayKey, fingerprint: true))
write("stun", "ice-check-no-integrity", check([]).encode(integrityKey: nil, fingerprint: true))
write("stun", "binding-success-v4", STUNMessage(type: STUNMessageType(method: .binding, messageClass: .successResponse),
    transactionID: tid, attributes: [.xorMappedAddress(peerV4, transactionID: tid), .mappedAddress(peerV4)])
    .encode(integrityKey: relayKey, fingerprint: true))
write("stun", "binding-success-v6", STUNMessage(type: STUNMessageType(method: .binding, messageClass: .successResponse),
    transactionID: tid, attributes: [.xorMappedAddress(peerV6, transactionID: tid), .software("OnAir fuzz")])
    .encode(integrityKey: relayKey, fingerprint: true))
write("stun", "binding-error-420", STUNMessage(type: STUNMessageType(method: .binding, messageClass: .errorResponse),
    transactionID: tid, attributes: [.errorCode(.unknownAttribute), .unknownAttributes([STUNAttributeType(rawValue: 0x0042)])])
    .encode(integrityKey: nil, fingerprint: false))
write("stun", "binding-indication", STUNMessage(type: STUNMessageType(method: .binding, messageClass: .indication),
    transactionID: tid).encode(integrityKey: nil, fingerprint: true))

// MARK: RTP: what browsers send (Opus with audio level, H.264 with abs-send-time, transport-cc, mid).

func block(_ elements: [RTPHeaderExtensionElement], form: RTPHeaderExtensionForm? = nil) -> RTPHeaderExtensionBlock {
    if let form { return try! RTPHeaderExtensionBlock(elements: elements, form: form) }
    return try! RTPHeaderExtensionBlock(elements: elements)
}
let opusPayload = [UInt8](repeating: 0xFC, count: 3) + Array(0..<60)
let h264Payload: [UInt8] = [0x7C, 0x85] + Array(repeating: 0xAB, count: 90) // FU-A start of an IDR
let rtpPackets: [(String, [UInt8])] = [
    ("opus-audio-level", RTPPacketBuilder(payloadType: 111, sequenceNumber: 0x1234, timestamp: 960, ssrc: 0x1111_1111, marker: true,
        extensionBlock: block([.audioLevel(id: 1, voiceActivity: true, level: 30), .transportSequenceNumber(id: 3, 7), .mid(id: 4, "0")]))
        .build(payload: opusPayload)),
    ("h264-fu-a", RTPPacketBuilder(payloadType: 96, sequenceNumber: 0xFFFF, timestamp: 90_000, ssrc: 0x2222_2222,
        extensionBlock: block([.absSendTime(id: 2, 0x12_3456), .transportSequenceNumber(id: 3, 0xFFFF), .mid(id: 4, "1")]))
        .build(payload: h264Payload)),
    ("two-byte-extensions", RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 0x2222_2222,
        extensionBlock: block([RTPHeaderExtensionElement(id: 200, data: []), RTPHeaderExtensionElement(id: 5, data: Array(0..<20)),
                               .mid(id: 16, "video")], form: .twoByte(appBits: 0)))
        .build(payload: h264Payload)),
    ("csrcs-and-padding", RTPPacketBuilder(payloadType: 111, sequenceNumber: 9, timestamp: 10, ssrc: 11, csrcs: [1, 2, 3],
        extensionBlock: block([.audioLevel(id: 1, voiceActivity: false, level: 127)]), paddingLength: 4)
        .build(payload: opusPayload)),
    ("plain", RTPPacketBuilder(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0).build(payload: [0x55, 0x55])),
    ("unknown-profile-extension", RTPPacketBuilder(payloadType: 96, sequenceNumber: 3, timestamp: 4, ssrc: 5,
        extensionBlock: RTPHeaderExtensionBlock(profile: 0xABCD, data: [1, 2, 3, 4])).build(payload: [1])),
    ("one-byte-with-padding-and-id15", RTPPacketBuilder(payloadType: 96, sequenceNumber: 3, timestamp: 4, ssrc: 5,
        extensionBlock: RTPHeaderExtensionBlock(profile: 0xBEDE, data: [0x10, 0xAA, 0x00, 0x00, 0x21, 0x01, 0x02, 0xF0, 0x30, 0x00]))
        .build(payload: [1, 2])),
]
for (name, packet) in rtpPackets { write("rtp", name, packet) }
let rtx = try! RTX.wrap(rtpPackets[1].1, rtxSSRC: 0x3333_3333, rtxPayloadType: 97, rtxSequenceNumber: 500)
write("rtp", "rtx", rtx)

// MARK: RTCP: every packet type the relay parses, alone and in compounds.

let sr = RTCPPacket.senderReport(SenderReport(ssrc: 0x1111_1111, ntpTime: NTPTime(rawValue: 0xE87C_1A2B_4C5D_6E7F),
    rtpTimestamp: 123_456, packetCount: 100, octetCount: 12_000,
    reportBlocks: [ReportBlock(ssrc: 0x2222_2222, fractionLost: 3, cumulativeLost: -2, extendedHighestSequenceNumber: 0x1_0005,
                               jitter: 40, lastSenderReport: 0x1A2B_4C5D, delaySinceLastSenderReport: 6553)]))
let sdes = RTCPPacket.sourceDescription(SourceDescription(chunks: [
    .init(ssrc: 0x1111_1111, items: [.cname("abcdefghijklmnop"), SDESItem(type: SDESItem.tool, text: "fuzz")]),
    .init(ssrc: 0x2222_2222, items: [.cname("x")]),
]))
let rr = RTCPPacket.receiverReport(ReceiverReport(ssrc: 1, reportBlocks: [ReportBlock(ssrc: 0x1111_1111, fractionLost: 255)]))
let nack = RTCPPacket.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: 0x2222_2222, lostSequenceNumbers: [10, 11, 13, 30, 65535, 0]))
let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x2222_2222))
let fir = RTCPPacket.fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 0x2222_2222, sequenceNumber: 7)]))
let remb = RTCPPacket.remb(REMB(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [0x1111_1111, 0x2222_2222]))
let twcc = RTCPPacket.transportWideFeedback(try! TransportWideFeedback(senderSSRC: 1, mediaSSRC: 0x2222_2222,
    baseSequenceNumber: 0xFFFE, feedbackPacketCount: 3,
    arrivalTimesMicroseconds: [1_000_000, nil, 1_000_250, 1_010_000, nil, nil, 990_000, 1_500_000] + Array(repeating: 1_600_000, count: 20)))
let bye = RTCPPacket.goodbye(Goodbye(ssrcs: [0x1111_1111, 0x2222_2222], reason: "gone"))
let xr = RTCPPacket.extendedReport(ExtendedReport(ssrc: 1, reportBlocks: hex("040000 02e87c1a2b4c5d6e7f".filter { $0 != " " })))
let app = RTCPPacket.applicationDefined(ApplicationDefined(subtype: 1, ssrc: 1, name: 0x5445_5354, data: [1, 2, 3, 4]))
let rtcpSeeds: [(String, [RTCPPacket])] = [
    ("sr-sdes", [sr, sdes]), ("rr-remb", [rr, remb]), ("rr-nack-pli", [rr, nack, pli]), ("fir", [fir]),
    ("twcc", [twcc]), ("sr-sdes-bye", [sr, sdes, bye]), ("xr-app", [rr, xr, app]), ("nack", [nack]),
]
for (name, packets) in rtcpSeeds { write("rtcp", name, RTCPCompoundBuilder.serialize(packets)) }
// RFC 3550 §6.4.1 padding on the last packet of a compound: P bit, count in the last octet.
var padded = RTCPCompoundBuilder.serialize([rr, pli])
let pliStart = RTCPCompoundBuilder.serialize([rr]).count
padded += [0, 0, 0, 4]
padded[pliStart] |= 0x20
let pliWords = (Int(padded[pliStart + 2]) << 8 | Int(padded[pliStart + 3])) + 1
padded[pliStart + 2] = UInt8(pliWords >> 8); padded[pliStart + 3] = UInt8(pliWords & 0xFF)
write("rtcp", "padded", padded)

// MARK: DTLS: a real in-memory handshake between our client and server endpoints.

let serverCert = try! DTLSCertificate.generateECDSA(commonName: "fuzz-server")
let clientCert = try! DTLSCertificate.generateECDSA(commonName: "fuzz-client")
let client = try! DTLSEndpoint(role: .client, certificate: clientCert, expectedPeerFingerprint: nil)
let server = try! DTLSEndpoint(role: .server, certificate: serverCert, expectedPeerFingerprint: nil)
func sent(_ outputs: [DTLSOutput]) -> [[UInt8]] { outputs.compactMap { if case .send(let d) = $0 { d } else { nil } } }
var now = MonoTime.seconds(1)
var flights: [(fromClient: Bool, datagrams: [[UInt8]])] = []
var toServer = sent(client.start(now: now))
flights.append((true, toServer))
while !toServer.isEmpty {
    let toClient = toServer.flatMap { sent(server.receive($0, now: now)) }
    if !toClient.isEmpty { flights.append((false, toClient)) }
    toServer = toClient.flatMap { sent(client.receive($0, now: now)) }
    if !toServer.isEmpty { flights.append((true, toServer)) }
}
precondition(client.isConnected && server.isConnected, "seed handshake did not complete")
let clientHello = flights[0].datagrams
let clientDatagrams = flights.filter(\.fromClient).flatMap(\.datagrams)
let serverDatagrams = flights.filter { !$0.fromClient }.flatMap(\.datagrams)
let appData = sent(client.send(applicationData: Array("hello".utf8), now: now))
let alert = sent(client.close(now: now))
write("dtls", "server-client-hello", [0] + chunks(clientHello))
write("dtls", "server-whole-client-side", [0] + chunks(clientDatagrams + appData + alert))
write("dtls", "inject-client-hello-copy", [1] + chunks(clientHello + clientHello))
write("dtls", "inject-after-handshake", [1] + chunks([[], [], [], [], [], []] + appData + alert))
write("dtls", "corrupt-none", [2] + chunks(Array(repeating: [], count: clientDatagrams.count)))
write("dtls", "corrupt-second-flight", [2] + chunks([[]] + [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01]]))
write("dtls", "client-server-flight", [3] + chunks(serverDatagrams))

// MARK: SRTP: plain packets for round trips, and genuine SRTP/SRTCP for raw unprotect.
// Keys as in fuzz-srtp: master key 00..0f, salt a0..ad (first 12 bytes for GCM).

let rtpForSRTP = [rtpPackets[0].1, rtpPackets[1].1, rtpPackets[3].1]
let rtcpForSRTP = [RTCPCompoundBuilder.serialize([sr, sdes]), RTCPCompoundBuilder.serialize([rr, nack])]
for profile in SRTPProfile.allCases {
    let flag: UInt8 = profile == .aeadAes128Gcm ? 1 : 0
    let tag = profile == .aeadAes128Gcm ? "gcm" : "cm"
    let sender = try! SRTPContext(profile: profile, masterKey: Array(0x00..<0x10),
                                  masterSalt: Array(Array(0xA0..<0xAE).prefix(profile.saltLength)))
    var raw: [[UInt8]] = []
    for packet in rtpForSRTP { var p = packet; try! sender.protectRTP(&p); raw.append([2] + p) }
    for packet in rtcpForSRTP { var p = packet; try! sender.protectRTCP(&p); raw.append([3] + p) }
    write("srtp", "\(tag)-raw", [flag] + chunks(raw))
    write("srtp", "\(tag)-round-trip", [flag] + chunks(rtpForSRTP.map { [0] + $0 } + rtcpForSRTP.map { [1] + $0 }))
    write("srtp", "\(tag)-tamper", [flag] + chunks([[0x04 | 5 << 3] + rtpForSRTP[0], [0x05 | 3 << 3] + rtcpForSRTP[0]]))
    // A sequence across the 16-bit wrap, a replay, and a fifth SSRC (the contexts keep four).
    var sequence: [[UInt8]] = []
    for (i, seq) in [UInt16(65534), 65535, 0, 1, 1, 40000].enumerated() {
        sequence.append([0] + RTPPacketBuilder(payloadType: 96, sequenceNumber: seq, timestamp: UInt32(i), ssrc: 7).build(payload: [9]))
    }
    for ssrc: UInt32 in 1...5 {
        sequence.append([0] + RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 1, ssrc: ssrc).build(payload: [9]))
    }
    write("srtp", "\(tag)-sequence", [flag] + chunks(sequence))
}
print("seeds written to \(corpus.path)")
