import OnAirCrypto

/// RTP and RTCP packets built for SRTP tests (RFC 3550 §5.1, §6.4.1).
enum SRTPTestPackets {
    /// An RTP packet; `payloadLength` bytes derived from `seed` so packets differ.
    static func rtp(sequence: UInt16, ssrc: UInt32, timestamp: UInt32 = 0x1234_5678, payloadLength: Int = 37,
                    csrcs: [UInt32] = [], extensionWords: [UInt32]? = nil, seed: UInt8 = 0) -> [UInt8] {
        var first: UInt8 = 0x80 | UInt8(csrcs.count)
        if extensionWords != nil { first |= 0x10 }
        var packet: [UInt8] = [first, 0x60 | 0x80, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += bytes(timestamp) + bytes(ssrc)
        for csrc in csrcs { packet += bytes(csrc) }
        if let words = extensionWords {
            packet += [0xBE, 0xDE, UInt8(words.count >> 8), UInt8(words.count & 0xFF)]
            for word in words { packet += bytes(word) }
        }
        for i in 0..<payloadLength { packet.append(UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed) &+ Int(sequence))) }
        return packet
    }

    /// A sender-report-shaped packet (PT 200) of 13 + `extraWords` words, filler derived from `seed`.
    static func rtcp(ssrc: UInt32, seed: UInt8 = 0, extraWords: Int = 0) -> [UInt8] {
        let words = 12 + extraWords  // length field: 32-bit words minus one
        var packet: [UInt8] = [0x81, 200, UInt8(words >> 8), UInt8(words & 0xFF)]
        packet += bytes(ssrc)
        for i in 0..<(words * 4) { packet.append(UInt8(truncatingIfNeeded: i &* 7 &+ Int(seed))) }
        return packet
    }

    static func bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static let masterKey = hex("E1F97A0D3E018BE0D64FA32C06DE4139")
    static let masterSalt = hex("0EC675AD498AFEEBB6960B3AABE6")

    static func masterSalt(for profile: SRTPProfile) -> [UInt8] { Array(masterSalt.prefix(profile.saltLength)) }

    /// A sender and a receiver context sharing one master key, as the two ends of a direction.
    static func pair(_ profile: SRTPProfile, maximumStreams: Int = SRTPContext.defaultMaximumStreams)
        throws -> (sender: SRTPContext, receiver: SRTPContext) {
        let sender = try SRTPContext(profile: profile, masterKey: masterKey, masterSalt: masterSalt(for: profile),
                                     maximumStreams: maximumStreams)
        let receiver = try SRTPContext(profile: profile, masterKey: masterKey, masterSalt: masterSalt(for: profile),
                                       maximumStreams: maximumStreams)
        return (sender, receiver)
    }
}
