import OnAirRTP
import OnAirWire

/// A consumer of a stream's depacketized media besides the viewers: the relay's LL-HLS
/// packager. Fed on the forwarding thread, packet by packet, without copies.
package protocol MediaTap: AnyObject {
    /// Set by the tap when it needs a keyframe (a segment should start); the plane asks every
    /// layer for one and clears it.
    var keyframeWanted: Bool { get set }
    func receiveVideo(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                      payload: UnsafeRawBufferPointer, now: MonoTime)
    func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime)
    /// A sender report (RFC 3550 §6.4.1) of a video layer, or of the audio (`layer` nil).
    func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32)
    /// The stream ended: no more packets.
    func finish()
}
