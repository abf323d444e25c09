/// Array conveniences over the in-place buffer API, for control paths and tests. They allocate
/// (the array grows by the overhead); the per-packet path should use the buffer API.
extension SRTPContext {
    /// Protects an RTP packet; on return `packet` is the SRTP packet.
    public func protectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transformArray(&packet, spare: profile.rtpOverhead) { buffer, length throws(SRTPError) in
            try protectRTP(buffer: buffer, length: length)
        }
    }

    /// Unprotects an SRTP packet; on return `packet` is the RTP packet. Unchanged on a throw.
    public func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transformArray(&packet, spare: 0) { buffer, length throws(SRTPError) in
            try unprotectRTP(buffer: buffer, length: length)
        }
    }

    /// Protects a (compound) RTCP packet; on return `packet` is the SRTCP packet.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transformArray(&packet, spare: profile.rtcpOverhead) { buffer, length throws(SRTPError) in
            try protectRTCP(buffer: buffer, length: length)
        }
    }

    /// Unprotects an SRTCP packet; on return `packet` is the RTCP packet. Unchanged on a throw.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try transformArray(&packet, spare: 0) { buffer, length throws(SRTPError) in
            try unprotectRTCP(buffer: buffer, length: length)
        }
    }

    /// Runs `body` on a working copy with `spare` extra bytes and commits it only on success,
    /// so a failed unprotect never leaves half-decrypted bytes in the caller's array.
    private func transformArray(_ packet: inout [UInt8], spare: Int,
                                _ body: (UnsafeMutableRawBufferPointer, Int) throws(SRTPError) -> Int) throws(SRTPError) {
        let length = packet.count
        var work = packet
        work.append(contentsOf: repeatElement(0, count: spare))
        var outcome: Result<Int, SRTPError> = .success(0)
        work.withUnsafeMutableBytes { bytes in
            do throws(SRTPError) {
                outcome = .success(try body(bytes, length))
            } catch {
                outcome = .failure(error)
            }
        }
        let newLength = try outcome.get()
        work.removeLast(work.count - newLength)
        packet = work
    }
}
