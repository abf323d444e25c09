import OnAirForwarding
import OnAirRTP
import OnAirWire

/// A tap consumer that counts what reaches it (``PlaneHarness/tapConsumer``), and asks for a
/// keyframe when told to, as the LL-HLS packager does at a segment boundary.
package final class CountingTapConsumer: MediaTapConsumer {
    package var keyframeWanted = false
    package private(set) var videoPackets = 0
    package private(set) var audioPackets = 0
    package private(set) var senderReports = 0
    /// Video payload octets per publisher layer.
    package private(set) var videoOctets: [Int: Int] = [:]

    package init() {}

    package func receiveVideo(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                              payload: UnsafeRawBufferPointer, now: MonoTime) {
        videoPackets += 1
        videoOctets[layer, default: 0] += payload.count
    }

    package func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        audioPackets += 1
    }

    package func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32) {
        senderReports += 1
    }
}
