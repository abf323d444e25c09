import Testing
@testable import OnAirCrypto

@Suite("SRTPContext buffer API and hostile input")
struct SRTPBufferAPITests {
    @Test(arguments: SRTPProfile.allCases)
    func bufferAPIMatchesArrayAPI(profile: SRTPProfile) throws {
        let (arraySender, receiver) = try SRTPTestPackets.pair(profile)
        let (bufferSender, _) = try SRTPTestPackets.pair(profile)
        let plain = SRTPTestPackets.rtp(sequence: 4_242, ssrc: 0xABCD, payloadLength: 333)
        var viaArray = plain
        try arraySender.protectRTP(&viaArray)

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_500, alignment: 16)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: plain)
        let protectedLength = try bufferSender.protectRTP(buffer: buffer, length: plain.count)
        #expect(Array(buffer[0..<protectedLength]) == viaArray)
        let plainLength = try receiver.unprotectRTP(buffer: buffer, length: protectedLength)
        #expect(Array(buffer[0..<plainLength]) == plain)

        let rtcp = SRTPTestPackets.rtcp(ssrc: 0xABCD, extraWords: 3)
        buffer.copyBytes(from: rtcp)
        let srtcpLength = try bufferSender.protectRTCP(buffer: buffer, length: rtcp.count)
        #expect(srtcpLength == rtcp.count + profile.rtcpOverhead)
        let rtcpLength = try receiver.unprotectRTCP(buffer: buffer, length: srtcpLength)
        #expect(Array(buffer[0..<rtcpLength]) == rtcp)
    }

    @Test("a header the caller read or wrote gives the same SRTP as one read here", arguments: SRTPProfile.allCases)
    func headerGivenByTheCaller(profile: SRTPProfile) throws {
        let (readsHeader, receiver) = try SRTPTestPackets.pair(profile)
        let (givenHeader, _) = try SRTPTestPackets.pair(profile)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_500, alignment: 16)
        defer { buffer.deallocate() }
        for (index, plain) in [SRTPTestPackets.rtp(sequence: 7, ssrc: 0x99, csrcs: [1, 2], extensionWords: [0x1020_3040]),
                               SRTPTestPackets.rtp(sequence: 8, ssrc: 0x99, payloadLength: 1)].enumerated() {
            let headerLength = index == 0 ? 12 + 8 + 8 : 12
            var expected = plain
            try readsHeader.protectRTP(&expected)
            buffer.copyBytes(from: plain)
            let length = try givenHeader.protectRTP(buffer: buffer, length: plain.count, headerLength: headerLength,
                                                    sequence: UInt16(7 + index), ssrc: 0x99)
            #expect(Array(buffer[0..<length]) == expected)
            let plainLength = try receiver.unprotectRTP(buffer: buffer, length: length, headerLength: headerLength,
                                                        sequence: UInt16(7 + index), ssrc: 0x99)
            #expect(Array(buffer[0..<plainLength]) == plain)
        }
        // A header length that cannot be: refused, never trusted.
        buffer.copyBytes(from: SRTPTestPackets.rtp(sequence: 9, ssrc: 0x99))
        #expect(throws: SRTPError.self) {
            try givenHeader.protectRTP(buffer: buffer, length: 20, headerLength: 21, sequence: 9, ssrc: 0x99)
        }
        #expect(throws: SRTPError.self) {
            try receiver.unprotectRTP(buffer: buffer, length: 20, headerLength: 11, sequence: 9, ssrc: 0x99)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func bufferWithoutRoomForTheTrailerIsRefused(profile: SRTPProfile) throws {
        let (sender, _) = try SRTPTestPackets.pair(profile)
        let plain = SRTPTestPackets.rtp(sequence: 1, ssrc: 1)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: plain.count + profile.rtpOverhead - 1, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: plain)
        #expect(throws: SRTPError.bufferTooSmall(needed: plain.count + profile.rtpOverhead, capacity: buffer.count)) {
            try sender.protectRTP(buffer: buffer, length: plain.count)
        }
        #expect(throws: SRTPError.self) { try sender.protectRTP(buffer: buffer, length: -1) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func malformedAndShortPacketsThrowInsteadOfTrapping(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var empty: [UInt8] = []
        #expect(throws: SRTPError.tooShort(needed: 12, got: 0)) { try sender.protectRTP(&empty) }
        var version1: [UInt8] = [0x40] + [UInt8](repeating: 0, count: 20)
        #expect(throws: SRTPError.malformed(reason: "RTP version is not 2")) { try sender.protectRTP(&version1) }
        // 15 CSRCs promised, none present.
        var csrcs: [UInt8] = [0x8F] + [UInt8](repeating: 0, count: 19)
        #expect(throws: SRTPError.tooShort(needed: 72, got: 20)) { try sender.protectRTP(&csrcs) }
        // Header extension claiming 0xFFFF words.
        var ext: [UInt8] = [0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE, 0xDE, 0xFF, 0xFF]
        #expect(throws: SRTPError.tooShort(needed: 16 + 4 * 0xFFFF, got: 16)) { try sender.protectRTP(&ext) }
        var truncatedExtension: [UInt8] = [0x90, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xBE]
        #expect(throws: SRTPError.tooShort(needed: 16, got: 13)) { try sender.protectRTP(&truncatedExtension) }
        var shortSRTP = [UInt8](SRTPTestPackets.rtp(sequence: 1, ssrc: 1, payloadLength: 0).prefix(12 + profile.rtpOverhead - 1))
        #expect(throws: SRTPError.tooShort(needed: 12 + profile.rtpOverhead, got: shortSRTP.count)) {
            try receiver.unprotectRTP(&shortSRTP)
        }
        var shortRTCP: [UInt8] = [0x80, 200, 0, 1, 0, 0]
        #expect(throws: SRTPError.tooShort(needed: 8, got: 6)) { try sender.protectRTCP(&shortRTCP) }
        var shortSRTCP = [UInt8](repeating: 0x80, count: 8 + profile.rtcpOverhead - 1)
        #expect(throws: SRTPError.tooShort(needed: 8 + profile.rtcpOverhead, got: shortSRTCP.count)) {
            try receiver.unprotectRTCP(&shortSRTCP)
        }
    }

    /// Random bytes must never trap and essentially never authenticate.
    @Test(arguments: SRTPProfile.allCases)
    func randomGarbageIsRejected(profile: SRTPProfile) throws {
        let (_, receiver) = try SRTPTestPackets.pair(profile)
        for length in 0..<200 {
            var garbage = SecureRandom.bytes(length)
            if length > 0 { garbage[0] = 0x80 | (garbage[0] & 0x3F) }
            var copy = garbage
            #expect(throws: SRTPError.self) { try receiver.unprotectRTP(&garbage) }
            #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(&copy) }
        }
        #expect(receiver.streamCount == 0)
    }
}

@Suite("SRTP replay window and index estimation (RFC 3711 §3.3.1, §3.3.2)")
struct SRTPReplayWindowTests {
    @Test func windowAcceptsNewRejectsSeenAndTooOld() {
        var window = SRTPReplayWindow()
        #expect(window.allows(500))
        window.accept(500)
        #expect(!window.allows(500))
        #expect(window.allows(499) && window.allows(373) && !window.allows(372))
        window.accept(450)
        #expect(!window.allows(450) && window.allows(451))
        window.accept(1_000)  // jump farther than the window: everything older is forgotten-as-old
        #expect(!window.allows(500) && !window.allows(872) && window.allows(873) && window.allows(999))
        #expect(window.highest == 1_000)
    }

    @Test func estimatorFollowsAppendixA() {
        typealias E = SRTPIndexEstimator
        #expect(E.estimate(sequence: 65_000, highest: nil) == 65_000)
        #expect(E.estimate(sequence: 3, highest: 65_530) == 0x1_0003)  // wrapped forward
        #expect(E.estimate(sequence: 65_530, highest: 0x1_0003) == 65_530)  // late, from before the wrap
        #expect(E.estimate(sequence: 40_000, highest: 5) == 40_000)  // ROC 0 cannot go back
        #expect(E.estimate(sequence: 200, highest: 0x5_0064) == 0x5_00C8)
        #expect(E.estimate(sequence: 0, highest: E.maximumIndex) > E.maximumIndex)  // exhausted
    }
}
