import CLiveSRTP
import OnAirCrypto

/// libsrtp2 called once per process (a lazy global is initialized exactly once).
let libsrtpInitialized: Bool = srtp_init() == srtp_err_status_ok

/// A libsrtp2 session for ONE direction, used only as an independent reference for our SRTP.
/// Test-only; each test owns its sessions, so no sharing across threads.
final class LibSRTPSession {
    enum Failure: Error, Equatable { case status(Int) }

    private var session: srtp_t?

    init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8], outbound: Bool) throws {
        precondition(libsrtpInitialized, "srtp_init failed")
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CmHmacSha1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAes128Gcm:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = 128
        policy.allow_repeat_tx = 0
        var material = masterKey + masterSalt  // libsrtp copies the key during srtp_create
        let status = material.withUnsafeMutableBufferPointer { key -> srtp_err_status_t in
            policy.key = key.baseAddress
            return srtp_create(&session, &policy)
        }
        guard status == srtp_err_status_ok else { throw Failure.status(Int(status.rawValue)) }
    }

    deinit { if let session { srtp_dealloc(session) } }

    func protectRTP(_ packet: [UInt8]) throws -> [UInt8] { try run(packet, srtp_protect) }
    func unprotectRTP(_ packet: [UInt8]) throws -> [UInt8] { try run(packet, srtp_unprotect) }
    func protectRTCP(_ packet: [UInt8]) throws -> [UInt8] { try run(packet, srtp_protect_rtcp) }
    func unprotectRTCP(_ packet: [UInt8]) throws -> [UInt8] { try run(packet, srtp_unprotect_rtcp) }

    /// libsrtp writes up to SRTP_MAX_TRAILER_LEN bytes past the packet.
    private func run(_ packet: [UInt8],
                     _ operation: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t)
        throws -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: Int(SRTP_MAX_TRAILER_LEN))
        var length = Int32(packet.count)
        let status = buffer.withUnsafeMutableBytes { operation(session, $0.baseAddress, &length) }
        guard status == srtp_err_status_ok else { throw Failure.status(Int(status.rawValue)) }
        return Array(buffer[0..<Int(length)])
    }
}
