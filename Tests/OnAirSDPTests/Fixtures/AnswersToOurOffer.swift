// Answers that real peers gave to `SDPNegotiator.makeOffer` with `TestValues.clientTransport` and
// `TestValues.ssrcs` (the offer is pinned in ClientOfferTests). Verbatim.

enum AnswersToOurOffer {
    /// Chromium 156: setRemoteDescription(offer) then createAnswer, no local tracks.
    static let chromium = """
        v=0
        o=- 6020247841931899544 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic: WMS
        m=audio 9 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Z6om
        a=ice-pwd:50ENczD/dVyAEzH8TPOxyEmx
        a=ice-options:trickle
        a=fingerprint:sha-256 BC:6C:1B:F0:A2:AA:CD:F7:99:6F:46:87:53:A6:3A:C6:68:EC:B8:D8:CB:7A:7B:18:6C:42:A9:2B:2D:71:48:F8
        a=setup:active
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        m=video 9 UDP/TLS/RTP/SAVPF 96 97
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Z6om
        a=ice-pwd:50ENczD/dVyAEzH8TPOxyEmx
        a=ice-options:trickle
        a=fingerprint:sha-256 BC:6C:1B:F0:A2:AA:CD:F7:99:6F:46:87:53:A6:3A:C6:68:EC:B8:D8:CB:7A:7B:18:6C:42:A9:2B:2D:71:48:F8
        a=setup:active
        a=mid:1
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=recvonly
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 H264/90000
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        """

    /// aiortc 1.16: the same, as a full-ICE answerer.
    static let aiortc = """
        v=0
        o=- 4004312921 4004312921 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 33750 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 127.0.0.1
        a=recvonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=mid:0
        a=msid:4928f931-1a02-4340-8336-e38164e06299 ec321392-3b7b-40eb-b3b9-c4793e89cb71
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:1963820982 cname:1a390768-ec98-42b1-a623-a69ecdb06e4c
        a=rtpmap:111 opus/48000/2
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 33750 typ host
        a=end-of-candidates
        a=ice-ufrag:j6Kl
        a=ice-pwd:ybEcT50AdKsQkf7i6VrZrx
        a=fingerprint:sha-256 72:FF:06:D0:3E:B6:0D:5E:00:DF:B1:9B:2A:A9:09:C5:94:C0:CE:04:2D:9A:32:9E:F0:61:0C:4B:7D:98:4C:EC
        a=fingerprint:sha-384 7A:D9:70:DC:BF:F7:05:D9:7E:DF:92:A9:5F:65:A2:4C:01:E0:B1:50:21:B7:18:FC:01:5C:E6:32:79:93:C8:83:5C:10:AA:48:BA:6F:79:71:53:96:9C:E2:EF:02:75:41
        a=fingerprint:sha-512 0E:1F:50:B3:74:FD:FD:2C:86:7A:8B:04:A5:35:AE:36:E4:C5:7E:2F:05:BC:A5:21:C7:E0:82:58:63:92:31:69:D3:4E:9F:84:59:66:8B:1F:8F:18:D4:AF:8B:E1:D4:B7:68:DE:4A:FA:42:30:1C:13:C4:14:0D:FF:8D:2E:7D:61
        a=setup:active
        m=video 33750 UDP/TLS/RTP/SAVPF 96 97
        c=IN IP4 127.0.0.1
        a=recvonly
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=mid:1
        a=msid:4928f931-1a02-4340-8336-e38164e06299 e93068d3-2817-4acf-b984-9c2706366fda
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2725480445 650998200
        a=ssrc:2725480445 cname:1a390768-ec98-42b1-a623-a69ecdb06e4c
        a=ssrc:650998200 cname:1a390768-ec98-42b1-a623-a69ecdb06e4c
        a=rtpmap:96 H264/90000
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 33750 typ host
        a=end-of-candidates
        a=ice-ufrag:j6Kl
        a=ice-pwd:ybEcT50AdKsQkf7i6VrZrx
        a=fingerprint:sha-256 72:FF:06:D0:3E:B6:0D:5E:00:DF:B1:9B:2A:A9:09:C5:94:C0:CE:04:2D:9A:32:9E:F0:61:0C:4B:7D:98:4C:EC
        a=fingerprint:sha-384 7A:D9:70:DC:BF:F7:05:D9:7E:DF:92:A9:5F:65:A2:4C:01:E0:B1:50:21:B7:18:FC:01:5C:E6:32:79:93:C8:83:5C:10:AA:48:BA:6F:79:71:53:96:9C:E2:EF:02:75:41
        a=fingerprint:sha-512 0E:1F:50:B3:74:FD:FD:2C:86:7A:8B:04:A5:35:AE:36:E4:C5:7E:2F:05:BC:A5:21:C7:E0:82:58:63:92:31:69:D3:4E:9F:84:59:66:8B:1F:8F:18:D4:AF:8B:E1:D4:B7:68:DE:4A:FA:42:30:1C:13:C4:14:0D:FF:8D:2E:7D:61
        a=setup:active
        """

    /// The offer both peers answered: `SDPNegotiator.makeOffer(local: TestValues.clientTransport,
    /// ssrcs: TestValues.ssrcs)` at the time of capture.
    static let offer = """
        v=0
        o=- 3407518796165585505 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        m=audio 40000 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 127.0.0.1
        a=candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host
        a=end-of-candidates
        a=ice-ufrag:rlyU
        a=ice-pwd:relaypasswordrelaypassword
        a=fingerprint:sha-256 00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:stream1 a0
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=ssrc:1111 cname:relaycname
        a=ssrc:1111 msid:stream1 a0
        m=video 40000 UDP/TLS/RTP/SAVPF 96 97
        c=IN IP4 127.0.0.1
        a=ice-ufrag:rlyU
        a=ice-pwd:relaypasswordrelaypassword
        a=fingerprint:sha-256 00:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13:14:15:16:17:18:19:1A:1B:1C:1D:1E:1F
        a=setup:actpass
        a=mid:1
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:stream1 v0
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 H264/90000
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 transport-cc
        a=fmtp:96 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=ssrc-group:FID 2222 3333
        a=ssrc:2222 cname:relaycname
        a=ssrc:2222 msid:stream1 v0
        a=ssrc:3333 cname:relaycname
        a=ssrc:3333 msid:stream1 v0
        """
}
