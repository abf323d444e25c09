import Logging
import NIOCore
import OnAirForwarding
import OnAirWire
import Testing
@testable import OnAirRelay

/// ``HLSService``: streams handed over through their ``MediaTapRing`` from another thread
/// (this test plays the forwarding loop), woken by the doorbell, served once started.
@Suite("HLS: service on its own thread")
struct HLSServiceTests {
    static let logger = Logger(label: "hls-service-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Polls `condition` (on the test's thread) for up to two seconds.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    static func state(_ hls: HLSService, room: String) async throws -> String {
        try await hls.perform { service in
            switch service.multivariant(room: room) {
            case .notFound(let reason): return "not found: \(reason)"
            case .wait: return "held"
            case .content: return "content"
            case .badRequest(let reason): return "bad request: \(reason)"
            }
        }
    }

    @Test("a stream is served once its publisher connected, and as ended after it finished")
    func lifecycle() async throws {
        let hls = try await HLSService.start(settings: HLSSettings(), logger: Self.logger)
        let ring = hls.makeTap(room: "42", streamID: "abc", hasAudio: false, rids: [])
        #expect(try await Self.state(hls, room: "42") == "not found: room 42 is not live")
        ring.start()
        #expect(try await Self.eventually { try await Self.state(hls, room: "42") == "held" })
        ring.finish()
        #expect(try await Self.eventually {
            try await Self.state(hls, room: "42") == "not found: the stream ended before any media was packaged"
        })
        await hls.stop()
    }

    @Test("media written on another thread reaches the branch, and its keyframe wish comes back")
    func keyframeRoundTrip() async throws {
        let hls = try await HLSService.start(settings: HLSSettings(), logger: Self.logger)
        let ring = hls.makeTap(room: "7", streamID: "abc", hasAudio: false, rids: [])
        ring.start()
        // IDR slices without SPS/PPS: once its timeline starts (2 s of arrival time without
        // sender reports) the branch cannot package them and asks for a keyframe.
        let start = MonoTime.now()
        for frame in 0..<4 {
            HLSBranchInputTests.idrSlice.withUnsafeBytes { payload in
                ring.video(layer: 0, rid: nil, isPrimary: true, sequence: UInt16(frame), timestamp: UInt32(frame) * 90_000,
                           marker: true, payload: payload, now: start + .seconds(Double(frame)))
            }
            ring.announce()
        }
        #expect(try await Self.eventually { ring.takeKeyframeRequest() })
        #expect(ring.dropped == 0)
        ring.finish()
        await hls.stop()
    }
}
