import FuzzSupport
import OnAirDTLS
import OnAirWire

// fuzz-dtls: a DTLS-SRTP endpoint (RFC 5764, RFC 6347) fed hostile datagrams.
//
// Input: one mode byte, then length-prefixed datagrams (2-byte big-endian length each).
//   mode 0: a fresh server (the relay's usual role) receives the datagrams.
//   mode 1: a real client and server handshake; before each client flight, and after the
//           handshake, the server also receives the next fuzz datagram (injection by an
//           on-path attacker who can spoof the 5-tuple).
//   mode 2: a real handshake where each client datagram is XORed with the next fuzz
//           datagram on its way (corruption and truncation of genuine records).
//   mode 3: a fresh client (our WHIP client) that sent its ClientHello receives them.
// Nothing may trap; when both sides report keys, they must be mirror images.

private let serverCertificate = try! DTLSCertificate.generateECDSA(commonName: "fuzz-server")
private let clientCertificate = try! DTLSCertificate.generateECDSA(commonName: "fuzz-client")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte() % 4
    let datagrams = input.chunks(limit: 16)
    switch mode {
    case 0: feedAlone(.server, datagrams)
    case 3: feedAlone(.client, datagrams)
    default: handshake(datagrams, inject: mode == 1)
    }
    return 0
}

private func makeEndpoint(_ role: DTLSRole) -> DTLSEndpoint {
    let peer = role == .server ? clientCertificate : serverCertificate
    let own = role == .server ? serverCertificate : clientCertificate
    guard let endpoint = try? DTLSEndpoint(role: role, certificate: own, expectedPeerFingerprint: peer.fingerprint) else {
        fatalError("fuzz-dtls setup: cannot create a \(role) endpoint")
    }
    return endpoint
}

private func feedAlone(_ role: DTLSRole, _ datagrams: [[UInt8]]) {
    let endpoint = makeEndpoint(role)
    var now = MonoTime.seconds(1)
    _ = endpoint.start(now: now)
    for datagram in datagrams {
        checkOutputs(endpoint.receive(datagram, now: now))
        now = now + .milliseconds(100)
        checkOutputs(endpoint.handleTimeout(now: now))
    }
    _ = endpoint.send(applicationData: [1, 2, 3], now: now)
    checkOutputs(endpoint.close(now: now))
}

private func handshake(_ fuzzDatagrams: [[UInt8]], inject: Bool) {
    let client = makeEndpoint(.client), server = makeEndpoint(.server)
    var fuzz = fuzzDatagrams.makeIterator()
    var now = MonoTime.seconds(1)
    var clientKeys: DTLSSRTPKeys?, serverKeys: DTLSSRTPKeys?
    var toServer = sends(client.start(now: now), keys: &clientKeys)
    _ = server.start(now: now)
    for _ in 0..<8 where !toServer.isEmpty {
        if inject, let extra = fuzz.next() { _ = sends(server.receive(extra, now: now), keys: &serverKeys) }
        var toClient: [[UInt8]] = []
        for datagram in toServer {
            var delivered = datagram
            if !inject, let mask = fuzz.next() { delivered = corrupt(datagram, with: mask) }
            toClient += sends(server.receive(delivered, now: now), keys: &serverKeys)
        }
        toServer = []
        for datagram in toClient { toServer += sends(client.receive(datagram, now: now), keys: &clientKeys) }
        now = now + .milliseconds(10)
    }
    if let clientKeys, let serverKeys {
        fuzzCheck(clientKeys.localMasterKey == serverKeys.remoteMasterKey && clientKeys.remoteMasterKey == serverKeys.localMasterKey
                  && clientKeys.localMasterSalt == serverKeys.remoteMasterSalt && clientKeys.profile == serverKeys.profile,
                  "client and server disagree on the SRTP keys")
    }
    // After the handshake: whatever is left goes to the connected server.
    while let extra = fuzz.next() { _ = sends(server.receive(extra, now: now), keys: &serverKeys) }
    for datagram in sends(server.send(applicationData: [0x17], now: now), keys: &serverKeys) {
        _ = client.receive(datagram, now: now)
    }
    _ = server.close(now: now)
}

/// XORs `mask` over the datagram; a mask longer than the datagram truncates it to the
/// mask's length minus the excess (so the fuzzer can also shorten records).
private func corrupt(_ datagram: [UInt8], with mask: [UInt8]) -> [UInt8] {
    var out = datagram
    for (i, byte) in mask.enumerated() where i < out.count { out[i] ^= byte }
    let excess = mask.count - datagram.count
    if excess > 0 { out.removeLast(min(excess, out.count)) }
    return out
}

private func sends(_ outputs: [DTLSOutput], keys: inout DTLSSRTPKeys?) -> [[UInt8]] {
    checkOutputs(outputs)
    var out: [[UInt8]] = []
    for output in outputs {
        switch output {
        case .send(let datagram): out.append(datagram)
        case .connected(let agreed): keys = agreed
        default: break
        }
    }
    return out
}

/// Datagrams we send must fit the MTU (1200 by default).
private func checkOutputs(_ outputs: [DTLSOutput]) {
    for case .send(let datagram) in outputs {
        fuzzCheck(!datagram.isEmpty && datagram.count <= 1200, "sent a \(datagram.count)-byte datagram")
    }
}
