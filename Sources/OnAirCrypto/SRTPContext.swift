/// SRTP and SRTCP protection for ONE direction of a DTLS-SRTP session (RFC 3711, RFC 7714),
/// on OpenSSL EVP. Make one context to protect what you send and another, with the peer's
/// keys, to unprotect what you receive.
///
/// The buffer API works in place on caller memory and does no heap allocation once an SSRC
/// is known: cipher contexts are created at init and only re-IV'd per packet, HMAC state is
/// copied on the stack, and per-SSRC state lives in a table whose storage is reserved at init.
///
/// `@unchecked Sendable`: the context mutates per-SSRC state and OpenSSL cipher contexts on
/// every call without locks (the hot path must not take one). It may be created anywhere and
/// handed to the event loop that owns the stream, but it must only ever be used from that
/// one event loop at a time.
public final class SRTPContext: @unchecked Sendable {
    public let profile: SRTPProfile
    /// Upper bound on distinct SSRCs this context tracks (see `SRTPStreamTable`).
    public static let defaultMaximumStreams = 64

    private enum Transform {
        case counterMode(SRTPCounterModeTransform)
        case gcm(SRTPGCMTransform)
    }

    private let transform: Transform
    private var streams: SRTPStreamTable

    /// Derives the session keys (RFC 3711 §4.3, kdr 0) from the master key and salt, as
    /// exported by DTLS-SRTP (RFC 5764 §4.2) for this direction.
    public convenience init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8],
                            maximumStreams: Int = SRTPContext.defaultMaximumStreams) throws(SRTPError) {
        let rtp = try SRTPSessionKeys.derive(profile: profile, masterKey: masterKey, masterSalt: masterSalt, rtcp: false)
        let rtcp = try SRTPSessionKeys.derive(profile: profile, masterKey: masterKey, masterSalt: masterSalt, rtcp: true)
        try self.init(profile: profile, rtpKeys: rtp, rtcpKeys: rtcp, maximumStreams: maximumStreams)
    }

    /// Uses session keys as given (RFC 7714 §16/§17 vectors are stated with session keys).
    init(profile: SRTPProfile, rtpKeys: SRTPSessionKeys, rtcpKeys: SRTPSessionKeys,
         maximumStreams: Int = SRTPContext.defaultMaximumStreams) throws(SRTPError) {
        self.profile = profile
        switch profile {
        case .aes128CmHmacSha1_80: transform = .counterMode(try SRTPCounterModeTransform(rtp: rtpKeys, rtcp: rtcpKeys))
        case .aeadAes128Gcm: transform = .gcm(try SRTPGCMTransform(rtp: rtpKeys, rtcp: rtcpKeys))
        }
        streams = SRTPStreamTable(limit: maximumStreams)
    }

    /// How many SSRCs this context has state for.
    public var streamCount: Int { streams.count }

    /// Protects the RTP packet in the first `length` bytes of `buffer`, in place (RFC 3711 §3.3).
    /// The caller guarantees `buffer.count >= length + profile.rtpOverhead`.
    /// - Returns: the SRTP packet's length.
    public func protectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let packet = try Self.base(of: buffer, length: length, spare: profile.rtpOverhead)
        return try protectRTP(packet, length: length, header: try RTPHeaderLayout(packet, available: length))
    }

    /// ``protectRTP(buffer:length:)`` of a packet whose header the caller just wrote: it says
    /// where the header ends (12 octets, CSRCs and extension block included), its sequence
    /// number and SSRC, so the header is not read again (the relay's per-viewer path).
    public func protectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int, headerLength: Int, sequence: UInt16,
                           ssrc: UInt32) throws(SRTPError) -> Int {
        let packet = try Self.base(of: buffer, length: length, spare: profile.rtpOverhead)
        guard headerLength >= RTPHeaderLayout.fixedLength, headerLength <= length else {
            throw .malformed(reason: "RTP header of \(headerLength) octets in a \(length)-octet packet")
        }
        return try protectRTP(packet, length: length, header: RTPHeaderLayout(length: headerLength, sequence: sequence, ssrc: ssrc))
    }

    /// Protects `packet` (``base(of:length:spare:)`` of the caller's buffer) whose header is `header`.
    private func protectRTP(_ packet: UnsafeMutableRawPointer, length: Int, header: RTPHeaderLayout) throws(SRTPError) -> Int {
        let slot = try streams.slotAdding(header.ssrc)
        // Estimating (rather than counting) lets a retransmission of an older packet reuse its
        // own index instead of bumping the ROC (RFC 3711 §3.3.1).
        let index = SRTPIndexEstimator.estimate(sequence: header.sequence, highest: streams[slot].highestRTPIndex)
        guard index <= SRTPIndexEstimator.maximumIndex else { throw .indexExhausted }
        let protected: Int
        switch transform {
        case .counterMode(let t):
            protected = try t.protectRTP(packet, headerLength: header.length, length: length, ssrc: header.ssrc, index: index)
        case .gcm(let t):
            protected = try t.protectRTP(packet, headerLength: header.length, length: length, ssrc: header.ssrc, index: index)
        }
        streams[slot].advanceRTP(to: index)
        return protected
    }

    /// Verifies and decrypts the SRTP packet in the first `length` bytes of `buffer`, in place
    /// (RFC 3711 §3.3 receiver steps), rejecting replays (§3.3.2). On a throw the bytes are
    /// unspecified and the packet must be dropped; no state changes.
    /// - Returns: the RTP packet's length.
    public func unprotectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let packet = try Self.base(of: buffer, length: length, spare: 0)
        let tag = profile.rtpOverhead
        guard length >= RTPHeaderLayout.fixedLength + tag else {
            throw .tooShort(needed: RTPHeaderLayout.fixedLength + tag, got: length)
        }
        return try unprotectRTP(packet, length: length, header: try RTPHeaderLayout(packet, available: length - tag))
    }

    /// ``unprotectRTP(buffer:length:)`` of a packet whose header (in the clear, RFC 3711
    /// §3.1) the caller has read already, with the same bound checks: where it ends, its
    /// sequence number and SSRC. The relay reads it once, for this and for forwarding.
    public func unprotectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int, headerLength: Int, sequence: UInt16,
                             ssrc: UInt32) throws(SRTPError) -> Int {
        let packet = try Self.base(of: buffer, length: length, spare: 0)
        guard headerLength >= RTPHeaderLayout.fixedLength, headerLength + profile.rtpOverhead <= length else {
            throw .tooShort(needed: max(headerLength, RTPHeaderLayout.fixedLength) + profile.rtpOverhead, got: length)
        }
        return try unprotectRTP(packet, length: length, header: RTPHeaderLayout(length: headerLength, sequence: sequence, ssrc: ssrc))
    }

    /// Verifies and decrypts `packet` (``base(of:length:spare:)`` of the caller's buffer) whose header is `header`.
    private func unprotectRTP(_ packet: UnsafeMutableRawPointer, length: Int, header: RTPHeaderLayout) throws(SRTPError) -> Int {
        let slot = streams.slot(of: header.ssrc)
        let state = slot.map { streams[$0] } ?? SRTPStreamState(ssrc: header.ssrc)
        let index = SRTPIndexEstimator.estimate(sequence: header.sequence, highest: state.highestRTPIndex)
        guard index <= SRTPIndexEstimator.maximumIndex, state.rtpReplay.allows(index) else {
            throw .replayed(index: index)
        }
        let plain: Int
        switch transform {
        case .counterMode(let t):
            plain = try t.unprotectRTP(packet, headerLength: header.length, length: length, ssrc: header.ssrc, index: index)
        case .gcm(let t):
            plain = try t.unprotectRTP(packet, headerLength: header.length, length: length, ssrc: header.ssrc, index: index)
        }
        // Only an authenticated packet creates or moves state (§3.3.1: update ROC and s_l).
        let target: Int
        if let slot { target = slot } else { target = try streams.add(state) }
        streams[target].rtpReplay.accept(index)
        streams[target].advanceRTP(to: index)
        return plain
    }

    /// Protects the (compound) RTCP packet in the first `length` bytes of `buffer`, in place,
    /// always encrypted (E = 1) with the SSRC's next SRTCP index (RFC 3711 §3.4).
    /// The caller guarantees `buffer.count >= length + profile.rtcpOverhead`.
    /// - Returns: the SRTCP packet's length.
    public func protectRTCP(buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let packet = try Self.base(of: buffer, length: length, spare: profile.rtcpOverhead)
        let ssrc = try Self.rtcpSender(packet, available: length)
        let slot = try streams.slotAdding(ssrc)
        let index = streams[slot].nextRTCPIndex
        guard index <= 0x7FFF_FFFF else { throw .indexExhausted }
        let protected: Int
        switch transform {
        case .counterMode(let t): protected = try t.protectRTCP(packet, length: length, ssrc: ssrc, index: index)
        case .gcm(let t): protected = try t.protectRTCP(packet, length: length, ssrc: ssrc, index: index)
        }
        streams[slot].nextRTCPIndex = index + 1
        return protected
    }

    /// Verifies and (if E = 1) decrypts the SRTCP packet in the first `length` bytes of
    /// `buffer`, in place, rejecting replays per SSRC. On a throw the bytes are unspecified.
    /// - Returns: the RTCP packet's length.
    public func unprotectRTCP(buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        let packet = try Self.base(of: buffer, length: length, spare: 0)
        let minimum = 8 + profile.rtcpOverhead
        guard length >= minimum else { throw .tooShort(needed: minimum, got: length) }
        let ssrc = try Self.rtcpSender(packet, available: length)
        let wordOffset: Int
        switch transform {
        case .counterMode: wordOffset = SRTPCounterModeTransform.rtcpIndexOffset(length: length)
        case .gcm: wordOffset = SRTPGCMTransform.rtcpIndexOffset(length: length)
        }
        let word = packet.loadUnaligned(fromByteOffset: wordOffset, as: UInt32.self).bigEndian
        let encrypted = word & 0x8000_0000 != 0
        let index = word & 0x7FFF_FFFF
        let slot = streams.slot(of: ssrc)
        let window = slot.map { streams[$0].rtcpReplay } ?? SRTPReplayWindow()
        guard window.allows(UInt64(index)) else { throw .replayed(index: UInt64(index)) }
        let plain: Int
        switch transform {
        case .counterMode(let t):
            plain = try t.unprotectRTCP(packet, length: length, ssrc: ssrc, index: index, encrypted: encrypted)
        case .gcm(let t):
            plain = try t.unprotectRTCP(packet, length: length, ssrc: ssrc, index: index, encrypted: encrypted)
        }
        let target: Int
        if let slot { target = slot } else { target = try streams.add(SRTPStreamState(ssrc: ssrc)) }
        streams[target].rtcpReplay.accept(UInt64(index))
        return plain
    }

    /// The rollover counter currently held for `ssrc` (nil if the SSRC is unknown).
    public func rolloverCounter(of ssrc: UInt32) -> UInt32? {
        streams.slot(of: ssrc).map { streams[$0].rolloverCounter }
    }

    /// Sets the SRTCP index the next protected RTCP packet of `ssrc` will carry (tests replay
    /// RFC 7714 §17, which uses index 0x5d4).
    func setNextRTCPIndex(_ index: UInt32, for ssrc: UInt32) throws(SRTPError) {
        let slot = try streams.slotAdding(ssrc)
        streams[slot].nextRTCPIndex = index
    }

    /// Checks the caller's promise about `buffer` and returns its base address.
    private static func base(of buffer: UnsafeMutableRawBufferPointer, length: Int,
                             spare: Int) throws(SRTPError) -> UnsafeMutableRawPointer {
        guard length >= 0, length <= 65_535 else { throw .malformed(reason: "length outside 0...65535") }
        guard let base = buffer.baseAddress, buffer.count >= length + spare else {
            throw .bufferTooSmall(needed: length + spare, capacity: buffer.count)
        }
        return base
    }

    /// The sender SSRC of the first RTCP packet (RFC 3550 §6.4; RFC 3711 §3.4 leaves the
    /// first 8 bytes in the clear).
    private static func rtcpSender(_ packet: UnsafeRawPointer, available: Int) throws(SRTPError) -> UInt32 {
        guard available >= 8 else { throw .tooShort(needed: 8, got: available) }
        guard packet.load(as: UInt8.self) >> 6 == 2 else { throw .malformed(reason: "RTCP version is not 2") }
        return packet.loadUnaligned(fromByteOffset: 4, as: UInt32.self).bigEndian
    }
}
