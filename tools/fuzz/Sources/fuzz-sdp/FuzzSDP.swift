import FuzzSupport
import OnAirSDP

// fuzz-sdp: one input is one HTTP body: a WHIP/WHEP offer, a WHIP answer, or a trickle
// PATCH (application/trickle-ice-sdpfrag). Every parser and negotiator that may see such a
// body gets it:
//
// - SessionDescription.parse (RFC 8866), then serialize: the serialization must parse again
//   and serialize to the same text;
// - SDPNegotiator.answerIngest (WHIP publisher offer), answerEgress (WHEP viewer offer,
//   against a fixed publisher), acceptAnswer (the answer to our own WHIP client offer);
// - SDPFragment.parse (RFC 8840) and its serialization round trip.

private let fingerprint = DTLSFingerprint(algorithm: "sha-256", bytes: Array(0..<32))
private let relay = LocalTransport(
    iceUfrag: "rlyU", icePassword: "relaypasswordrelaypassword", fingerprint: fingerprint,
    candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 40000)])
private let client: LocalTransport = {
    var transport = relay
    transport.iceLite = false
    return transport
}()
private let ssrcs = LocalSSRCs(cname: "relaycname", streamID: "stream1",
                               audio: .init(ssrc: 1111, trackID: "a0"),
                               video: .init(ssrc: 2222, rtxSSRC: 3333, trackID: "v0"))
/// Our WHIP client's offer (the one tools/fuzz/corpus/sdp/answer-* answer).
private let ourOffer = SDPNegotiator.makeOffer(local: client, ssrcs: ssrcs)
/// A publisher for WHEP viewers: the relay's session after ingesting our own offer.
private let publisher: NegotiatedSession = {
    guard let session = try? SDPNegotiator.answerIngest(offer: ourOffer, local: relay).session else {
        fatalError("fuzz-sdp setup: the relay refuses our own client's offer")
    }
    return session
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = FuzzInput(data, size).bytes
    let text = String(decoding: bytes, as: UTF8.self)
    fuzzFragment(text)

    guard let offer = try? SessionDescription.parse(utf8: bytes) else { return 0 }
    for media in offer.media {
        _ = (media.payloadFormats, media.candidates, media.simulcast, media.rids, media.primarySSRC, media.payloadTypes)
        _ = (offer.iceUfrag(for: media), offer.fingerprints(for: media), offer.setup(for: media), offer.direction(for: media))
        for pt in media.payloadTypes { _ = (media.rtxPayloadType(for: pt), media.formatParameters(for: pt)) }
    }
    let serialized = offer.serialize()
    do {
        let again = try SessionDescription.parse(serialized)
        fuzzCheck(again.serialize() == serialized, "serialize(parse(serialize(d))) != serialize(d)")
    } catch {
        fuzzCheck(false, "serialized description does not parse: \(error)\n\(serialized)")
    }

    if let (answer, _) = try? SDPNegotiator.answerIngest(offer: offer, local: relay) {
        checkOwnOutput(answer, "ingest answer")
    }
    if let (answer, _) = try? SDPNegotiator.answerEgress(offer: offer, local: relay, source: publisher, localSSRCs: ssrcs) {
        checkOwnOutput(answer, "egress answer")
    }
    _ = try? SDPNegotiator.acceptAnswer(answer: offer, offer: ourOffer)
    return 0
}

/// What we send must be something we (and so any sane peer) can parse.
private func checkOwnOutput(_ description: SessionDescription, _ what: String) {
    fuzzCheck((try? SessionDescription.parse(description.serialize())) != nil, "our \(what) does not parse")
}

private func fuzzFragment(_ text: String) {
    guard let fragment = try? SDPFragment.parse(text) else { return }
    for section in fragment.media { _ = (fragment.iceUfrag(for: section), fragment.icePassword(for: section)) }
    _ = fragment.candidates(forMid: "0")
    let serialized = fragment.serialize()
    do {
        let again = try SDPFragment.parse(serialized)
        fuzzCheck(again.serialize() == serialized, "fragment serialization is not stable")
    } catch {
        fuzzCheck(false, "serialized fragment does not parse: \(error)\n\(serialized)")
    }
}
