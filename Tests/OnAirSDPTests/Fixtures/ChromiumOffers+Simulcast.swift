// Chromium offers for codec-choice and simulcast tests.

extension ChromiumOffers {
    /// Chromium 156 WHIP publisher with simulcast (sendEncodings rids h, m, l), captured here;
    /// VP9 profiles 1-3, AV1, TCP and non-loopback candidates trimmed.
    static let whipSimulcast = """
        v=0
        o=- 174699580582563070 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS df2ff9e2-b844-46f8-926e-97ed2fdd1e2f
        m=audio 56461 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 127.0.0.1
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:75552552 1 udp 2122194687 127.0.0.1 56461 typ host generation 0 network-id 3 network-cost 50
        a=candidate:363644320 1 udp 2122267903 ::1 51919 typ host generation 0 network-id 4 network-cost 50
        a=ice-ufrag:Zk0e
        a=ice-pwd:uh1LNSOw/idxO2ER8lwb4uvJ
        a=ice-options:trickle
        a=fingerprint:sha-256 33:D3:93:16:07:A6:20:D0:55:A6:53:82:CB:F8:E6:60:FC:CA:7B:A7:71:CB:BE:40:2C:A9:83:87:68:F9:37:A3
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:df2ff9e2-b844-46f8-926e-97ed2fdd1e2f b64e640a-5575-427b-9233-f95df1f390f6
        a=rtcp-mux
        a=rtcp-rsize
        a=rtcp-xr:rcvr-rtt=all
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:1991039423 cname:9rZq6ZeuwoqKEwBs
        a=ssrc:1991039423 msid:df2ff9e2-b844-46f8-926e-97ed2fdd1e2f b64e640a-5575-427b-9233-f95df1f390f6
        m=video 45654 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 118 119 120
        c=IN IP4 127.0.0.1
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:75552552 1 udp 2122194687 127.0.0.1 45654 typ host generation 0 network-id 3 network-cost 50
        a=candidate:363644320 1 udp 2122267903 ::1 52380 typ host generation 0 network-id 4 network-cost 50
        a=ice-ufrag:Zk0e
        a=ice-pwd:uh1LNSOw/idxO2ER8lwb4uvJ
        a=ice-options:trickle
        a=fingerprint:sha-256 33:D3:93:16:07:A6:20:D0:55:A6:53:82:CB:F8:E6:60:FC:CA:7B:A7:71:CB:BE:40:2C:A9:83:87:68:F9:37:A3
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=extmap:12 https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension
        a=extmap:9 http://www.webrtc.org/experiments/rtp-hdrext/video-layers-allocation00
        a=sendonly
        a=msid:df2ff9e2-b844-46f8-926e-97ed2fdd1e2f 891bb4a1-9d15-49c7-9a78-09a15eab2be9
        a=rtcp-mux
        a=rtcp-rsize
        a=rtcp-xr:rcvr-rtt=all
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:104 H264/90000
        a=rtcp-fb:104 goog-remb
        a=rtcp-fb:104 transport-cc
        a=rtcp-fb:104 ccm fir
        a=rtcp-fb:104 nack
        a=rtcp-fb:104 nack pli
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f
        a=rtpmap:107 rtx/90000
        a=fmtp:107 apt=104
        a=rtpmap:108 H264/90000
        a=rtcp-fb:108 goog-remb
        a=rtcp-fb:108 transport-cc
        a=rtcp-fb:108 ccm fir
        a=rtcp-fb:108 nack
        a=rtcp-fb:108 nack pli
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:109 rtx/90000
        a=fmtp:109 apt=108
        a=rtpmap:114 H264/90000
        a=rtcp-fb:114 goog-remb
        a=rtcp-fb:114 transport-cc
        a=rtcp-fb:114 ccm fir
        a=rtcp-fb:114 nack
        a=rtcp-fb:114 nack pli
        a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
        a=rtpmap:115 rtx/90000
        a=fmtp:115 apt=114
        a=rtpmap:116 H264/90000
        a=rtcp-fb:116 goog-remb
        a=rtcp-fb:116 transport-cc
        a=rtcp-fb:116 ccm fir
        a=rtcp-fb:116 nack
        a=rtcp-fb:116 nack pli
        a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
        a=rtpmap:117 rtx/90000
        a=fmtp:117 apt=116
        a=rtpmap:118 red/90000
        a=rtpmap:119 rtx/90000
        a=fmtp:119 apt=118
        a=rtpmap:120 ulpfec/90000
        a=rid:h send
        a=rid:m send
        a=rid:l send
        a=simulcast:send h;m;l
        """

    /// Hand-written in Chromium's format (as Chrome writes it where a hardware encoder adds High
    /// profiles): H.264 High and Constrained High listed before the Baseline ones, plus VP8, VP9,
    /// RED and ULPFEC, so that codec choice must go by profile rather than by order.
    static let whipHighFirst = """
        v=0
        o=- 5512313440271234567 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS s1
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Hh7q
        a=ice-pwd:Zx9d0b6f1QmJc1g8o4Yk2RbE
        a=ice-options:trickle
        a=fingerprint:sha-256 5C:27:35:0B:7E:43:9F:C1:88:B2:3D:0A:6E:94:F2:11:C8:7A:5D:E0:3B:91:4F:66:2C:DA:17:B8:40:E5:73:9A
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:s1 a1
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=ssrc:1001 cname:c1
        a=ssrc:1001 msid:s1 a1
        m=video 9 UDP/TLS/RTP/SAVPF 122 123 124 125 96 97 98 99 102 103 104 107 108 109 116 117 118 119 120
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Hh7q
        a=ice-pwd:Zx9d0b6f1QmJc1g8o4Yk2RbE
        a=ice-options:trickle
        a=fingerprint:sha-256 5C:27:35:0B:7E:43:9F:C1:88:B2:3D:0A:6E:94:F2:11:C8:7A:5D:E0:3B:91:4F:66:2C:DA:17:B8:40:E5:73:9A
        a=setup:actpass
        a=mid:1
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:13 urn:3gpp:video-orientation
        a=sendonly
        a=msid:s1 v1
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:122 H264/90000
        a=rtcp-fb:122 goog-remb
        a=rtcp-fb:122 transport-cc
        a=rtcp-fb:122 ccm fir
        a=rtcp-fb:122 nack
        a=rtcp-fb:122 nack pli
        a=fmtp:122 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f
        a=rtpmap:123 rtx/90000
        a=fmtp:123 apt=122
        a=rtpmap:124 H264/90000
        a=rtcp-fb:124 nack
        a=rtcp-fb:124 nack pli
        a=fmtp:124 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640c1f
        a=rtpmap:125 rtx/90000
        a=fmtp:125 apt=124
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 nack
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:98 VP9/90000
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:104 H264/90000
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f
        a=rtpmap:107 rtx/90000
        a=fmtp:107 apt=104
        a=rtpmap:108 H264/90000
        a=rtcp-fb:108 goog-remb
        a=rtcp-fb:108 transport-cc
        a=rtcp-fb:108 ccm fir
        a=rtcp-fb:108 nack
        a=rtcp-fb:108 nack pli
        a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:109 rtx/90000
        a=fmtp:109 apt=108
        a=rtpmap:116 H264/90000
        a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f
        a=rtpmap:117 rtx/90000
        a=fmtp:117 apt=116
        a=rtpmap:118 red/90000
        a=rtpmap:119 rtx/90000
        a=fmtp:119 apt=118
        a=rtpmap:120 ulpfec/90000
        a=ssrc-group:FID 2001 2002
        a=ssrc:2001 cname:c1
        a=ssrc:2001 msid:s1 v1
        a=ssrc:2002 cname:c1
        a=ssrc:2002 msid:s1 v1
        a=candidate:1 1 udp 2122260223 192.0.2.10 50000 typ host generation 0 network-id 1
        a=candidate:2 1 udp 1686052607 203.0.113.7 50000 typ srflx raddr 192.0.2.10 rport 50000 generation 0 network-id 1
        a=end-of-candidates
        """
}
