import Logging
import NIOPosix
import OnAirWire
import Testing
@testable import OnAirRelay

/// The LL-HLS branch's RTP input with publishers that do not behave like x264.
@Suite("HLS: branch input")
struct HLSBranchInputTests {
    /// A single-NAL-unit packet (RFC 6184 §5.6) holding an IDR slice, and no SPS/PPS anywhere.
    static let idrSlice: [UInt8] = [0x65, 0x88, 0x84, 0x00, 0x33, 0xFF]

    @Test("an IDR with no SPS/PPS seen asks for a keyframe instead of trapping")
    func keyframeWithoutParameterSets() {
        let branch = HLSBranch(room: "42", streamID: "s", settings: HLSSettings(), hasAudio: false,
                               loop: MultiThreadedEventLoopGroup.singleton.next(),
                               logger: Logger(label: "hls-input-tests", factory: { _ in SwiftLogNoOpLogHandler() }))
        // Found by fanout-bench, whose publisher sends bare IDR fragments: handling a completed
        // access unit read the depacketizer's SPS while the depacketizer was still being
        // mutated, and Swift's exclusivity check aborted the relay.
        var now = MonoTime.seconds(100)
        for frame in 0..<4 {
            Self.idrSlice.withUnsafeBytes { payload in
                branch.receiveVideo(sequence: UInt16(frame), timestamp: UInt32(frame) * 90_000, marker: true,
                                    payload: payload, now: now)
            }
            now = now + .seconds(1)   // past the 2 s arrival-time sync fallback
        }
        #expect(branch.keyframeWanted)
    }

    @Test("without SPS/PPS the branch asks for a keyframe once per segment target, not with every frame")
    func keyframeRequestsAreRateLimited() {
        let branch = HLSBranch(room: "42", streamID: "s", settings: HLSSettings(), hasAudio: false,
                               loop: MultiThreadedEventLoopGroup.singleton.next(),
                               logger: Logger(label: "hls-input-tests", factory: { _ in SwiftLogNoOpLogHandler() }))
        var requests = 0
        let start = MonoTime.seconds(100)
        // 10 s of 30 fps IDRs without parameter sets (the worst case: every frame asks).
        for frame in 0..<300 {
            let now = start + .milliseconds(frame * 1000 / 30)
            Self.idrSlice.withUnsafeBytes { payload in
                branch.receiveVideo(sequence: UInt16(frame), timestamp: UInt32(frame) * 3000, marker: true, payload: payload, now: now)
            }
            if branch.keyframeWanted {
                requests += 1
                branch.keyframeWanted = false
            }
        }
        // The timeline starts after 2 s (no sender reports), then one request per 2 s target.
        #expect(requests >= 3 && requests <= 5, "\(requests) requests in 10 s")
    }
}
