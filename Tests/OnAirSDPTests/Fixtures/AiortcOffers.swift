// Offers captured on this machine from real peers (loopback addresses; 192.0.2.0/24 and fd00::/8
// are the test host's own documentation/ULA addresses). Kept verbatim apart from the noted trims.

enum AiortcOffers {
    /// aiortc 1.16 WHIP publisher: sendonly opus + video restricted to H264/rtx by setCodecPreferences.
    static let whip = """
        v=0
        o=- 4004312838 4004312838 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 51972 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 127.0.0.1
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:228301b7-6e25-4392-8321-5034e3081b01 00a6edf9-d455-406b-8669-75da53d099bb
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:1614295454 cname:cea77b56-eabb-4268-8c1d-a0b3ce6f166d
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 51972 typ host
        a=end-of-candidates
        a=ice-ufrag:SfN7
        a=ice-pwd:E0OwY0ew2fVrLX4TPwlD3E
        a=fingerprint:sha-256 0A:20:F1:B7:A6:40:2D:BD:D3:48:53:C6:3A:6D:7C:98:A3:B8:2B:60:D1:14:8E:FB:AC:77:E1:EB:6F:D8:B5:A0
        a=fingerprint:sha-384 A8:7B:51:28:03:DE:10:62:F0:FB:42:49:91:D0:F9:FB:15:D3:7C:8E:26:0F:EB:25:79:E4:47:27:96:B3:E4:C1:AC:2F:40:3E:F5:8F:BC:02:00:F3:78:E0:68:8D:2C:D2
        a=fingerprint:sha-512 41:66:71:E2:FD:E2:D7:EA:DD:2D:8C:06:B2:F7:CC:97:11:F3:73:51:B5:38:3D:B7:CC:6D:ED:40:02:E9:6E:FB:0D:32:E6:00:6D:E6:5F:B2:CE:68:95:BC:CA:48:A4:8A:E0:48:B9:34:72:41:D3:46:49:7E:3E:A1:CC:67:F2:F2
        a=setup:actpass
        m=video 44337 UDP/TLS/RTP/SAVPF 99 100 101 102
        c=IN IP4 127.0.0.1
        a=sendonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:228301b7-6e25-4392-8321-5034e3081b01 19ca2eb6-cd50-4f5e-93bf-c244c0fd4f65
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2886908030 4041082264
        a=ssrc:2886908030 cname:cea77b56-eabb-4268-8c1d-a0b3ce6f166d
        a=ssrc:4041082264 cname:cea77b56-eabb-4268-8c1d-a0b3ce6f166d
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 44337 typ host
        a=end-of-candidates
        a=ice-ufrag:SfN7
        a=ice-pwd:E0OwY0ew2fVrLX4TPwlD3E
        a=fingerprint:sha-256 0A:20:F1:B7:A6:40:2D:BD:D3:48:53:C6:3A:6D:7C:98:A3:B8:2B:60:D1:14:8E:FB:AC:77:E1:EB:6F:D8:B5:A0
        a=fingerprint:sha-384 A8:7B:51:28:03:DE:10:62:F0:FB:42:49:91:D0:F9:FB:15:D3:7C:8E:26:0F:EB:25:79:E4:47:27:96:B3:E4:C1:AC:2F:40:3E:F5:8F:BC:02:00:F3:78:E0:68:8D:2C:D2
        a=fingerprint:sha-512 41:66:71:E2:FD:E2:D7:EA:DD:2D:8C:06:B2:F7:CC:97:11:F3:73:51:B5:38:3D:B7:CC:6D:ED:40:02:E9:6E:FB:0D:32:E6:00:6D:E6:5F:B2:CE:68:95:BC:CA:48:A4:8A:E0:48:B9:34:72:41:D3:46:49:7E:3E:A1:CC:67:F2:F2
        a=setup:actpass
        """

    /// aiortc 1.16 WHEP viewer: recvonly audio + video with default codecs.
    static let whep = """
        v=0
        o=- 4004312838 4004312838 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 41568 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 127.0.0.1
        a=recvonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:bc72ba7d-73c9-45a0-8df3-95457b6a7e3f 18642041-22a9-4d09-a9f4-dd28ec286f2a
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:2495994378 cname:0dcd2ec7-d53f-4c36-a9b7-ea0f53f765f9
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 41568 typ host
        a=end-of-candidates
        a=ice-ufrag:AYMj
        a=ice-pwd:H2h6M6iBuOyz0QnJ6ywefM
        a=fingerprint:sha-256 7B:A7:02:1C:D3:9B:47:C7:1D:A0:4D:DE:B4:23:06:D7:4C:B4:64:7F:1A:3A:79:68:40:31:71:6B:EE:28:52:7D
        a=fingerprint:sha-384 E3:62:9B:E1:2B:D7:D8:6B:0D:70:AF:1A:2C:41:F9:DD:07:B0:AF:05:44:CA:B4:76:7C:DB:7E:C0:F8:3B:45:E9:5E:59:65:11:0F:3A:A8:45:0F:53:3C:7E:85:05:D4:7C
        a=fingerprint:sha-512 98:94:3F:6C:09:34:83:7D:DD:2E:90:D2:9B:02:29:D0:28:AC:65:1D:43:34:5B:8F:F6:97:04:76:68:C5:1F:C6:9F:02:1C:AD:CA:99:03:8A:C7:44:0B:07:85:FA:E9:CE:E3:CB:ED:63:0B:9E:FC:B9:C0:60:FD:31:48:06:18:10
        a=setup:actpass
        m=video 35928 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 127.0.0.1
        a=recvonly
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:bc72ba7d-73c9-45a0-8df3-95457b6a7e3f 87386a6e-a1b1-4c87-9cac-9ae4e2dea12b
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 231716628 3214547265
        a=ssrc:231716628 cname:0dcd2ec7-d53f-4c36-a9b7-ea0f53f765f9
        a=ssrc:3214547265 cname:0dcd2ec7-d53f-4c36-a9b7-ea0f53f765f9
        a=rtpmap:97 VP8/90000
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 goog-remb
        a=rtpmap:98 rtx/90000
        a=fmtp:98 apt=97
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 35928 typ host
        a=end-of-candidates
        a=ice-ufrag:AYMj
        a=ice-pwd:H2h6M6iBuOyz0QnJ6ywefM
        a=fingerprint:sha-256 7B:A7:02:1C:D3:9B:47:C7:1D:A0:4D:DE:B4:23:06:D7:4C:B4:64:7F:1A:3A:79:68:40:31:71:6B:EE:28:52:7D
        a=fingerprint:sha-384 E3:62:9B:E1:2B:D7:D8:6B:0D:70:AF:1A:2C:41:F9:DD:07:B0:AF:05:44:CA:B4:76:7C:DB:7E:C0:F8:3B:45:E9:5E:59:65:11:0F:3A:A8:45:0F:53:3C:7E:85:05:D4:7C
        a=fingerprint:sha-512 98:94:3F:6C:09:34:83:7D:DD:2E:90:D2:9B:02:29:D0:28:AC:65:1D:43:34:5B:8F:F6:97:04:76:68:C5:1F:C6:9F:02:1C:AD:CA:99:03:8A:C7:44:0B:07:85:FA:E9:CE:E3:CB:ED:63:0B:9E:FC:B9:C0:60:FD:31:48:06:18:10
        a=setup:actpass
        """
}
