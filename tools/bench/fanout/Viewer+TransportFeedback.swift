import OnAirForwarding
import OnAirRTP
import OnAirSDP
import OnAirWebRTC

/// A viewer's transport-cc (draft-holmer-rmcat-transport-wide-cc-extensions-01): the
/// transport-wide sequence number of every packet, read from the clear RTP header (SRTP
/// leaves it readable), and feedback about them every 100 ms, as Chromium sends it.
extension Viewer {
    /// Records the arrival of one SRTP packet's transport-wide sequence number, if it has one.
    @inline(__always)
    func recordTransportSequence(_ packet: UnsafeMutableRawBufferPointer, arrivalNanoseconds: UInt64) {
        guard packet.count >= 16, packet[0] & 0x10 != 0 else { return }
        if feedbackSSRC == 0 && packet[1] & 0x7F == videoPayloadType {
            feedbackSSRC = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
        }
        // RFC 8285 §4.2: after the CSRCs, a 0xBEDE block of one-byte elements. Read here, not
        // with RTPPacketView: that takes the padding count from the last octet, which SRTP
        // has encrypted or covered with its tag.
        let start = 12 + 4 * Int(packet[0] & 0x0F)
        guard packet.count >= start + 4, packet[start] == 0xBE, packet[start + 1] == 0xDE else { return }
        let end = start + 4 + 4 * (Int(packet[start + 2]) << 8 | Int(packet[start + 3]))
        guard end <= packet.count else { return }
        var offset = start + 4
        while offset < end {
            let header = packet[offset]
            if header == 0 { offset += 1; continue }  // padding
            let id = header >> 4, length = Int(header & 0x0F) + 1
            if id == ReceiveOnlyOffer.transportCCExtensionID, length == 2, offset + 3 <= end {
                let sequence = UInt16(packet[offset + 1]) << 8 | UInt16(packet[offset + 2])
                feedback.record(sequence: sequence, arrivalMicroseconds: Int64(arrivalNanoseconds / 1_000))
                return
            }
            offset += 1 + length
        }
    }

    func sendTransportFeedback(session: ClientPeerSession) {
        guard let message = feedback.makeFeedback(senderSSRC: rtcpSSRC, mediaSSRC: feedbackSSRC),
              let destination = session.remoteAddress,
              let protected = session.protectRTCP(RTCPCompoundBuilder.serialize([.transportWideFeedback(message)])) else { return }
        send(protected, to: destination)
    }
}
