import OnAirSDP

/// Offers as WHIP/WHEP clients send them, built with the client half of ``SDPNegotiator``
/// (the same shape aiortc and Chromium produce: BUNDLE, rtcp-mux, actpass, Opus + H.264).
enum TestOffers {
    static let clientUfrag = "cliU"
    static let clientPassword = "clientpasswordclientpass"
    static let fingerprint = DTLSFingerprint(algorithm: "sha-256", bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

    static func transport(ufrag: String = clientUfrag, password: String = clientPassword) -> LocalTransport {
        LocalTransport(iceUfrag: ufrag, icePassword: password, fingerprint: fingerprint,
                       candidates: [ICECandidate(foundation: "1", priority: 2_130_706_431, address: "127.0.0.1", port: 50_000)],
                       iceLite: false)
    }

    /// A publisher's sendonly offer: Opus 111 and H.264 96 (+ RTX 97), Constrained Baseline 3.1.
    static func publisher(audio: Bool = true, video: Bool = true, ufrag: String = clientUfrag) -> String {
        let ssrcs = LocalSSRCs(cname: "testcname", streamID: "teststream",
                               audio: audio ? .init(ssrc: 1111, trackID: "audio0") : nil,
                               video: video ? .init(ssrc: 2222, rtxSSRC: 3333, trackID: "video0") : nil)
        return SDPNegotiator.makeOffer(local: transport(ufrag: ufrag), ssrcs: ssrcs).serialize()
    }

    /// A viewer's recvonly offer: the publisher's offer turned around (recvonly, no sources).
    static func viewer(ufrag: String = "viwU") -> String {
        publisher(ufrag: ufrag).split(separator: "\r\n").compactMap { line -> String? in
            if line == "a=sendonly" { return "a=recvonly" }
            if line.hasPrefix("a=ssrc") || line.hasPrefix("a=msid:") { return nil }
            return String(line)
        }.joined(separator: "\r\n") + "\r\n"
    }

    /// Well-formed, but video is VP8 only and there is no audio: nothing the relay can take.
    static let vp8Only = lines([
        "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
        "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "c=IN IP4 0.0.0.0",
        "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
        "a=setup:actpass", "a=mid:0", "a=sendonly", "a=rtcp-mux",
        "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack pli", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
    ])

    /// Bodies that are not SDP at all, or SDP broken at its core.
    static let garbage: [String] = [
        "hello",
        "{\"type\":\"offer\",\"sdp\":\"v=0\"}",
        "v=0\r\n",
        "v=1\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n",
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video\r\n",
        "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96\r\n",
        String(repeating: "a=x\r\n", count: 100),
        "\u{0}\u{1}\u{2}\u{FF}",
        "",
    ]

    static func lines(_ lines: [String]) -> String { lines.joined(separator: "\r\n") + "\r\n" }
}
