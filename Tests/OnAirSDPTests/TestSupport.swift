import OnAirSDP

/// Shared inputs: the relay's (or client's) transport and sources used across the tests.
enum TestValues {
    static let fingerprint = DTLSFingerprint(algorithm: "sha-256", bytes: Array(0..<32))
    static let relayCandidate = ICECandidate(foundation: "1", priority: 2130706431, address: "127.0.0.1", port: 40000)
    static let relayTransport = LocalTransport(iceUfrag: "rlyU", icePassword: "relaypasswordrelaypassword",
                                               fingerprint: fingerprint, candidates: [relayCandidate])
    static var clientTransport: LocalTransport {
        var transport = relayTransport
        transport.iceLite = false
        return transport
    }
    static let ssrcs = LocalSSRCs(cname: "relaycname", streamID: "stream1",
                                  audio: .init(ssrc: 1111, trackID: "a0"),
                                  video: .init(ssrc: 2222, rtxSSRC: 3333, trackID: "v0"))
}

/// The fixture text with CRLF line ends and a final CRLF, as peers send it.
func crlf(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n") + "\r\n"
}

/// The text without the lines that start with any of `prefixes`.
func removingLines(_ prefixes: String..., from text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { line in !prefixes.contains { line.hasPrefix($0) } }
        .joined(separator: "\n")
}

/// The text with each `old` line replaced by `new` (whole lines only).
func replacingLine(_ old: String, with new: String, in text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0 == old ? new : String($0) }
        .joined(separator: "\n")
}

/// A minimal WebRTC offer with one m= line per entry, for codec and error tests.
func offer(sessionLines: [String] = ["a=group:BUNDLE 0 1"], media: [[String]]) -> String {
    var lines = ["v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0"] + sessionLines
    for (index, section) in media.enumerated() {
        lines += section.map { $0.replacing("$MID", with: String(index)) }
    }
    return lines.joined(separator: "\r\n") + "\r\n"
}

/// The transport lines every test m= line needs; `$MID` is replaced by the m= line index.
let transportLines = [
    "c=IN IP4 0.0.0.0",
    "a=ice-ufrag:abcd",
    "a=ice-pwd:abcdefghijklmnopqrstuvwx",
    "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
    "a=setup:actpass",
    "a=mid:$MID",
    "a=rtcp-mux",
]

func opusSection(direction: String = "sendonly") -> [String] {
    ["m=audio 9 UDP/TLS/RTP/SAVPF 111"] + transportLines + ["a=\(direction)", "a=rtpmap:111 opus/48000/2"]
}

/// A video m= line offering H.264 payload types 100, 102, ... with the given fmtp texts.
func h264Section(_ fmtps: [String], direction: String = "sendonly") -> [String] {
    let pts = fmtps.indices.map { 100 + 2 * $0 }
    var lines = ["m=video 9 UDP/TLS/RTP/SAVPF " + pts.map(String.init).joined(separator: " ")] + transportLines + ["a=\(direction)"]
    for (pt, fmtp) in zip(pts, fmtps) {
        lines += ["a=rtpmap:\(pt) H264/90000", "a=rtcp-fb:\(pt) nack pli", "a=fmtp:\(pt) \(fmtp)"]
    }
    return lines
}
