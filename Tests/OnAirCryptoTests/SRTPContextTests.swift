import Testing
@testable import OnAirCrypto

@Suite("SRTPContext round trips, tampering, replay, rollover")
struct SRTPContextTests {
    @Test(arguments: SRTPProfile.allCases)
    func rtpRoundTripWithCSRCsAndExtension(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        for (i, length) in [0, 1, 15, 16, 17, 160, 1_187].enumerated() {
            let plain = SRTPTestPackets.rtp(sequence: UInt16(100 + i), ssrc: 0xCAFE_BABE, payloadLength: length,
                                            csrcs: i % 2 == 0 ? [1, 2] : [], extensionWords: i % 3 == 0 ? [0x1020_3040] : nil)
            var packet = plain
            try sender.protectRTP(&packet)
            #expect(packet.count == plain.count + profile.rtpOverhead)
            if length > 0 { #expect(packet != plain + packet.suffix(profile.rtpOverhead)) }
            try receiver.unprotectRTP(&packet)
            #expect(packet == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpRoundTripAndIndexIncrements(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        for i in 0..<5 {
            let plain = SRTPTestPackets.rtcp(ssrc: 0x0102_0304, seed: UInt8(i), extraWords: i)
            var packet = plain
            try sender.protectRTCP(&packet)
            #expect(packet.count == plain.count + profile.rtcpOverhead)
            #expect(Array(packet[0..<8]) == Array(plain[0..<8]))
            #expect(Array(packet[8..<plain.count]) != Array(plain[8...]))
            let wordOffset = profile == .aeadAes128Gcm ? packet.count - 4 : plain.count
            #expect(Array(packet[wordOffset..<wordOffset + 4]) == SRTPTestPackets.bytes(0x8000_0000 | UInt32(i)))
            try receiver.unprotectRTCP(&packet)
            #expect(packet == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedPacketsFailAuthenticationAndLeaveStateAlone(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var rtp = SRTPTestPackets.rtp(sequence: 7, ssrc: 9)
        try sender.protectRTP(&rtp)
        var rtcp = SRTPTestPackets.rtcp(ssrc: 9)
        try sender.protectRTCP(&rtcp)
        for position in [1, 12, 20, rtp.count - 1] {
            var bad = rtp
            bad[position] ^= 0x40
            let before = bad
            #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTP(&bad) }
            #expect(bad == before)  // the array API leaves a rejected packet untouched
        }
        for position in [8, 20, rtcp.count - 1] {
            var bad = rtcp
            bad[position] ^= 0x01
            #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTCP(&bad) }
        }
        #expect(receiver.streamCount == 0)  // forged packets created no state
        try receiver.unprotectRTP(&rtp)
        try receiver.unprotectRTCP(&rtcp)
        #expect(receiver.streamCount == 1)
    }

    @Test(arguments: SRTPProfile.allCases)
    func wrongKeyFailsAuthentication(profile: SRTPProfile) throws {
        let sender = try SRTPContext(profile: profile, masterKey: SRTPTestPackets.masterKey,
                                     masterSalt: SRTPTestPackets.masterSalt(for: profile))
        let stranger = try SRTPContext(profile: profile, masterKey: [UInt8](repeating: 7, count: 16),
                                       masterSalt: SRTPTestPackets.masterSalt(for: profile))
        var packet = SRTPTestPackets.rtp(sequence: 1, ssrc: 1)
        try sender.protectRTP(&packet)
        #expect(throws: SRTPError.authenticationFailed) { try stranger.unprotectRTP(&packet) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func replaysAreRejectedAndReorderingWithinTheWindowIsNot(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var protected: [[UInt8]] = []
        for seq in UInt16(1_000)..<1_300 {
            var packet = SRTPTestPackets.rtp(sequence: seq, ssrc: 5)
            try sender.protectRTP(&packet)
            protected.append(packet)
        }
        var first = protected[0]
        try receiver.unprotectRTP(&first)
        var again = protected[0]
        #expect(throws: SRTPError.replayed(index: 1_000)) { try receiver.unprotectRTP(&again) }
        // Jump ahead to 1_200, then deliver 1_100 late (inside 128) and 1_050 (outside).
        var ahead = protected[200]
        try receiver.unprotectRTP(&ahead)
        var late = protected[100]
        try receiver.unprotectRTP(&late)
        var lateAgain = protected[100]
        #expect(throws: SRTPError.replayed(index: 1_100)) { try receiver.unprotectRTP(&lateAgain) }
        var tooOld = protected[50]
        #expect(throws: SRTPError.replayed(index: 1_050)) { try receiver.unprotectRTP(&tooOld) }

        var rtcp = SRTPTestPackets.rtcp(ssrc: 5)
        try sender.protectRTCP(&rtcp)
        var rtcpCopy = rtcp
        try receiver.unprotectRTCP(&rtcp)
        #expect(throws: SRTPError.replayed(index: 0)) { try receiver.unprotectRTCP(&rtcpCopy) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rolloverCounterFollowsTheSequenceWrap(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var sequence: UInt16 = 65_500
        var held: [UInt8] = []
        for step in 0..<100 {
            let plain = SRTPTestPackets.rtp(sequence: sequence, ssrc: 77, payloadLength: 21, seed: UInt8(step))
            var packet = plain
            try sender.protectRTP(&packet)
            if sequence == 65_534 {
                held = packet  // delivered after the wrap: must decrypt with ROC 0, not 1
            } else {
                try receiver.unprotectRTP(&packet)
                #expect(packet == plain)
            }
            sequence &+= 1
        }
        #expect(sender.rolloverCounter(of: 77) == 1)
        #expect(receiver.rolloverCounter(of: 77) == 1)
        try receiver.unprotectRTP(&held)
        #expect(held == SRTPTestPackets.rtp(sequence: 65_534, ssrc: 77, payloadLength: 21, seed: 34))
        // A retransmission of a pre-wrap packet is protected with its old index (ROC 0).
        let old = SRTPTestPackets.rtp(sequence: 65_520, ssrc: 77, payloadLength: 21, seed: 99)
        var resent = old
        try sender.protectRTP(&resent)
        let fresh = try SRTPContext(profile: profile, masterKey: SRTPTestPackets.masterKey,
                                    masterSalt: SRTPTestPackets.masterSalt(for: profile))
        try fresh.unprotectRTP(&resent)  // a fresh receiver assumes ROC 0
        #expect(resent == old)
    }

    @Test(arguments: SRTPProfile.allCases)
    func ssrcsKeepIndependentState(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        for ssrc: UInt32 in [1, 2, 3] {
            var packet = SRTPTestPackets.rtp(sequence: 10, ssrc: ssrc)
            try sender.protectRTP(&packet)
            try receiver.unprotectRTP(&packet)
        }
        #expect(receiver.streamCount == 3)
    }

    @Test func streamTableIsBounded() throws {
        let (sender, receiver) = try SRTPTestPackets.pair(.aeadAes128Gcm, maximumStreams: 2)
        var a = SRTPTestPackets.rtp(sequence: 1, ssrc: 1)
        var b = SRTPTestPackets.rtp(sequence: 1, ssrc: 2)
        var c = SRTPTestPackets.rtp(sequence: 1, ssrc: 3)
        try sender.protectRTP(&a)
        try sender.protectRTP(&b)
        #expect(throws: SRTPError.tooManyStreams(limit: 2)) { try sender.protectRTP(&c) }
        try receiver.unprotectRTP(&a)
        try receiver.unprotectRTP(&b)
        #expect(receiver.streamCount == 2)
    }
}
