import OnAirForwarding
import OnAirRTP
import OnAirWire

/// A tap consumer that counts the packets that reach it (``PlaneHarness/tapConsumer``).
package final class CountingTapConsumer: MediaTapConsumer {
    package var keyframeWanted = false
    package private(set) var videoPackets = 0
    package private(set) var audioPackets = 0

    package init() {}

    package func receiveVideo(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                              payload: UnsafeRawBufferPointer, now: MonoTime) {
        videoPackets += 1
    }

    package func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        audioPackets += 1
    }

    package func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32) {}
}
