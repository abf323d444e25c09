import Testing
@testable import OnAirCrypto

/// Our SRTP against libsrtp2 (Debian's build), both ways, for both profiles: a few hundred RTP
/// packets across a sequence wrap, and SRTCP.
@Suite("SRTP interoperability with libsrtp2")
struct LibSRTPCrossCheckTests {
    static let ssrc: UInt32 = 0x1234_5678
    static let startSequence: UInt16 = 65_386  // wraps after 150 packets
    static let count = 300

    static func plainRTP(_ i: Int) -> [UInt8] {
        SRTPTestPackets.rtp(sequence: startSequence &+ UInt16(i), ssrc: ssrc, timestamp: UInt32(i * 3_000),
                            payloadLength: (i * 37) % 1_200, csrcs: i % 17 == 0 ? [0xAA, 0xBB] : [],
                            extensionWords: i % 5 == 0 ? [0x1122_3344, UInt32(i)] : nil, seed: UInt8(i & 0xFF))
    }

    @Test(arguments: SRTPProfile.allCases)
    func libsrtpProtectsOursUnprotects(profile: SRTPProfile) throws {
        let salt = SRTPTestPackets.masterSalt(for: profile)
        let reference = try LibSRTPSession(profile: profile, masterKey: SRTPTestPackets.masterKey,
                                           masterSalt: salt, outbound: true)
        let ours = try SRTPContext(profile: profile, masterKey: SRTPTestPackets.masterKey, masterSalt: salt)
        var protected = try (0..<Self.count).map { try reference.protectRTP(Self.plainRTP($0)) }
        // Deliver with some reordering inside the replay window (swap neighbours every 7).
        for i in stride(from: 0, to: protected.count - 1, by: 7) { protected.swapAt(i, i + 1) }
        var order = Array(0..<Self.count)
        for i in stride(from: 0, to: order.count - 1, by: 7) { order.swapAt(i, i + 1) }
        for (packet, i) in zip(protected, order) {
            var copy = packet
            try ours.unprotectRTP(&copy)
            #expect(copy == Self.plainRTP(i), "packet \(i)")
        }
        #expect(ours.rolloverCounter(of: Self.ssrc) == 1)

        for i in 0..<20 {
            let plain = SRTPTestPackets.rtcp(ssrc: Self.ssrc, seed: UInt8(i), extraWords: i % 4)
            var packet = try reference.protectRTCP(plain)
            try ours.unprotectRTCP(&packet)
            #expect(packet == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func oursProtectsLibsrtpUnprotects(profile: SRTPProfile) throws {
        let salt = SRTPTestPackets.masterSalt(for: profile)
        let ours = try SRTPContext(profile: profile, masterKey: SRTPTestPackets.masterKey, masterSalt: salt)
        let reference = try LibSRTPSession(profile: profile, masterKey: SRTPTestPackets.masterKey,
                                           masterSalt: salt, outbound: false)
        for i in 0..<Self.count {
            var packet = Self.plainRTP(i)
            try ours.protectRTP(&packet)
            #expect(try reference.unprotectRTP(packet) == Self.plainRTP(i), "packet \(i)")
        }
        for i in 0..<20 {
            let plain = SRTPTestPackets.rtcp(ssrc: Self.ssrc, seed: UInt8(i), extraWords: i % 4)
            var packet = plain
            try ours.protectRTCP(&packet)
            #expect(try reference.unprotectRTCP(packet) == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func bothProduceIdenticalSRTPBytes(profile: SRTPProfile) throws {
        let salt = SRTPTestPackets.masterSalt(for: profile)
        let ours = try SRTPContext(profile: profile, masterKey: SRTPTestPackets.masterKey, masterSalt: salt)
        let reference = try LibSRTPSession(profile: profile, masterKey: SRTPTestPackets.masterKey,
                                           masterSalt: salt, outbound: true)
        for i in 0..<Self.count {
            var packet = Self.plainRTP(i)
            try ours.protectRTP(&packet)
            #expect(packet == (try reference.protectRTP(Self.plainRTP(i))), "packet \(i)")
        }
        // libsrtp numbers its first SRTCP packet 1 (it increments before use); start there too.
        try ours.setNextRTCPIndex(1, for: Self.ssrc)
        for i in 0..<20 {
            let plain = SRTPTestPackets.rtcp(ssrc: Self.ssrc, seed: UInt8(i), extraWords: i % 4)
            var packet = plain
            try ours.protectRTCP(&packet)
            #expect(packet == (try reference.protectRTCP(plain)), "RTCP packet \(i)")
        }
    }

    @Test func libsrtpRejectsWhatWeTampered() throws {
        let salt = SRTPTestPackets.masterSalt(for: .aes128CmHmacSha1_80)
        let ours = try SRTPContext(profile: .aes128CmHmacSha1_80, masterKey: SRTPTestPackets.masterKey, masterSalt: salt)
        let reference = try LibSRTPSession(profile: .aes128CmHmacSha1_80, masterKey: SRTPTestPackets.masterKey,
                                           masterSalt: salt, outbound: false)
        var packet = Self.plainRTP(1)
        try ours.protectRTP(&packet)
        packet[packet.count - 1] ^= 1
        #expect(throws: LibSRTPSession.Failure.self) { try reference.unprotectRTP(packet) }
    }
}
