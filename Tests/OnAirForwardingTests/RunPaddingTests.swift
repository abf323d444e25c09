import OnAirRTP
import Testing
@testable import OnAirForwarding

/// RTP padding that keeps a frame's FU-A fragments one UDP GSO run (Room+FanOut).
@Suite("Fan-out run padding")
struct RunPaddingTests {
    /// The padding each packet of `sizes` (payload octets) gets when queued in this order.
    static func paddings(_ sizes: [Int], video: [Bool]? = nil) -> [Int] {
        var previous: Room.PendingPacket?
        var result: [Int] = []
        for (index, size) in sizes.enumerated() {
            let isVideo = video?[index] ?? true
            let view = RTPPacketView(payloadType: 96, marker: false, sequence: UInt16(index), timestamp: 0, ssrc: 1,
                                       payloadRange: 12..<(12 + size))
            let padding = isVideo ? Room.runPadding(payloadSize: size, after: previous) : 0
            previous = Room.PendingPacket(packet: UnsafeRawBufferPointer(start: nil, count: 0), view: view, isVideo: isVideo, keyframe: false, lead: 0, layer: isVideo ? 0 : -1, padding: padding)
            result.append(padding)
        }
        return result
    }

    @Test("fragments split about equally (libwebrtc, aiortc) are padded to the first one's size")
    func balancedFragments() {
        #expect(Self.paddings([1041, 1041, 1041, 1040, 1040, 1040]) == [0, 0, 0, 1, 1, 1])
    }

    @Test("a fill-then-remainder frame needs none: its short last fragment may end the run")
    func fillThenRemainder() {
        #expect(Self.paddings([1100, 1100, 1100, 345]) == [0, 0, 0, 0])
    }

    @Test("audio is never padded, and a video packet after audio starts afresh")
    func audio() {
        #expect(Self.paddings([1041, 120, 1040, 1039], video: [true, false, true, true]) == [0, 0, 0, 1])
    }

    @Test("more than 8 octets short: no padding; longer than the run: a new run")
    func limits() {
        #expect(Self.paddings([1000, 992, 991, 1200, 1199]) == [0, 8, 0, 0, 1])
    }
}
