import FuzzSupport
import OnAirCrypto

// fuzz-srtp: SRTP/SRTCP (RFC 3711, RFC 7714) unprotect of hostile packets, and protect →
// unprotect round trips that reach the code behind the authentication check.
//
// Input: one flag byte (bit 0: AEAD_AES_128_GCM instead of AES_CM_128_HMAC_SHA1_80), then
// length-prefixed chunks (2-byte big-endian length), each [control byte][packet]:
//   control bit 0: RTCP instead of RTP
//   control bit 1: raw: unprotect the packet as received (it is SRTP/SRTCP already)
//   control bit 2: tamper: flip one bit of the protected packet, at (control >> 3) modulo
//                  its length, before unprotecting (RFC 3711 §3.3 step 5 must reject it)
// Sender and receiver contexts share keys and live for one input, so sequences of packets
// exercise index estimation, rollover and the replay windows. They track at most 4 SSRCs.

private let masterKey: [UInt8] = Array(0x00..<0x10)
private let masterSalt: [UInt8] = Array(0xA0..<0xAE)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let profile: SRTPProfile = input.byte() & 1 == 0 ? .aes128CmHmacSha1_80 : .aeadAes128Gcm
    let salt = Array(masterSalt.prefix(profile.saltLength))
    guard let sender = try? SRTPContext(profile: profile, masterKey: masterKey, masterSalt: salt, maximumStreams: 4),
          let receiver = try? SRTPContext(profile: profile, masterKey: masterKey, masterSalt: salt, maximumStreams: 4)
    else { fatalError("fuzz-srtp setup: cannot create SRTP contexts") }

    for chunk in input.chunks(limit: 32) {
        guard let control = chunk.first else { continue }
        let packet = Array(chunk.dropFirst())
        let isRTCP = control & 1 != 0
        if control & 2 != 0 {
            var raw = packet
            try? unprotect(&raw, rtcp: isRTCP, with: receiver)
            continue
        }
        var protected = packet
        do throws(SRTPError) {
            if isRTCP { try sender.protectRTCP(&protected) } else { try sender.protectRTP(&protected) }
        } catch {
            continue
        }
        let overhead = isRTCP ? profile.rtcpOverhead : profile.rtpOverhead
        fuzzCheck(protected.count == packet.count + overhead, "protected packet has the wrong length")
        let tamper = control & 4 != 0
        if tamper { protected[Int(control >> 3) % protected.count] ^= 0x01 }
        var received = protected
        let accepted = (try? unprotect(&received, rtcp: isRTCP, with: receiver)) != nil
        if tamper {
            fuzzCheck(!accepted, "a tampered \(isRTCP ? "SRTCP" : "SRTP") packet was accepted")
        } else if accepted {
            fuzzCheck(received == packet, "unprotect(protect(p)) != p")
        }
    }
    return 0
}

private func unprotect(_ packet: inout [UInt8], rtcp: Bool, with context: SRTPContext) throws(SRTPError) {
    if rtcp { try context.unprotectRTCP(&packet) } else { try context.unprotectRTP(&packet) }
}
