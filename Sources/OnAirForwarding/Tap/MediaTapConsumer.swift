import OnAirRTP
import OnAirWire

/// What consumes a stream's media on the far side of a ``MediaTapRing`` (the relay's LL-HLS
/// packager), on its own thread, in the order the forwarding loop admitted it.
package protocol MediaTapConsumer: AnyObject {
    /// Set when it needs a keyframe (a segment should start); the ring passes it to the
    /// forwarding loop, which asks every layer for one.
    var keyframeWanted: Bool { get set }
    /// `now`: when the packet's datagram was read on the forwarding loop.
    func receiveVideo(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                      payload: UnsafeRawBufferPointer, now: MonoTime)
    func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime)
    /// A sender report (RFC 3550 §6.4.1) of a video layer, or of the audio (`layer` nil).
    func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32)
}
