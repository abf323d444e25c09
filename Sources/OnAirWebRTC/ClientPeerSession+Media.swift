import OnAirCrypto

/// SRTP/SRTCP protection (RFC 3711) for what a ``ClientPeerSession`` sends, and unprotection
/// for callers that demultiplex received datagrams themselves (a load tool counting packets from
/// the clear RTP header and decrypting only a sample).
extension ClientPeerSession {
    /// Bytes SRTP adds to an RTP packet (the auth tag); nil before the handshake completes.
    public var rtpOverhead: Int? { profile?.rtpOverhead }

    /// Protects the RTP packet in `buffer[0..<length]` in place; `buffer` must have
    /// ``rtpOverhead`` spare bytes after it. Returns the SRTP length, or nil when not connected
    /// or the packet cannot be protected. Allocation-free.
    @inline(__always)
    public func protectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard state == .connected, let outbound else { return nil }
        return try? outbound.protectRTP(buffer: buffer, length: length)
    }

    /// Protects an RTP packet (allocates; for control paths and tests).
    public func protectRTP(_ packet: [UInt8]) -> [UInt8]? {
        guard state == .connected, let outbound else { return nil }
        var bytes = packet
        do {
            try outbound.protectRTP(&bytes)
            return bytes
        } catch {
            return nil
        }
    }

    /// Protects the RTCP compound packet in `buffer[0..<length]` in place (needs
    /// `profile.rtcpOverhead` spare bytes). Allocation-free.
    public func protectRTCP(buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard state == .connected, let outbound else { return nil }
        return try? outbound.protectRTCP(buffer: buffer, length: length)
    }

    /// Protects an RTCP compound packet for sending (allocates).
    public func protectRTCP(_ packet: [UInt8]) -> [UInt8]? {
        guard state == .connected, let outbound else { return nil }
        var bytes = packet
        do {
            try outbound.protectRTCP(&bytes)
            return bytes
        } catch {
            return nil
        }
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` in place, returning the
    /// RTP length; nil (and ``srtpFailures`` counts it) when it does not authenticate or is a
    /// replay. The caller checked the source address. Allocation-free.
    @inline(__always)
    public func unprotectRTP(buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let inbound else { return nil }
        do {
            return try inbound.unprotectRTP(buffer: buffer, length: length)
        } catch {
            srtpFailures += 1
            if case .replayed = error { srtpReplays += 1 }
            return nil
        }
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` in place.
    public func unprotectRTCP(buffer: UnsafeMutableRawBufferPointer, length: Int) -> Int? {
        guard let inbound else { return nil }
        do {
            return try inbound.unprotectRTCP(buffer: buffer, length: length)
        } catch {
            srtpFailures += 1
            return nil
        }
    }
}
