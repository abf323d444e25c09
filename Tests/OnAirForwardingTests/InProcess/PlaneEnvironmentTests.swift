@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirWire
import Testing

/// The plane's time of day and random source are injected (``PlaneEnvironment``): a seeded
/// plane names its sessions and numbers its viewers' streams the same way every run.
@Suite("Plane environment")
struct PlaneEnvironmentTests {
    /// A viewer's session id, its video SSRC, and its first video sequence number and timestamp.
    static func run() throws -> [String] {
        let harness = try PlaneHarness()
        _ = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(1)) { !viewer.frames.isEmpty }
        let first = try #require(viewer.video.first)
        return [viewer.sessionID, "\(first.ssrc)", "\(first.sequence)", "\(first.timestamp)", "\(harness.plane.rtcpSenderSSRC)"]
    }

    @Test("two runs of a seeded plane: the same session ids, SSRCs and first numbers")
    func deterministic() throws {
        #expect(try Self.run() == Self.run())
    }

    @Test("the seeded source gives different numbers for different seeds, and a fixed time of day")
    func seeded() {
        let one = PlaneEnvironment.seeded(1)
        let two = PlaneEnvironment.seeded(2)
        #expect(one.randomBytes(16) != two.randomBytes(16))
        #expect(one.randomBytes(8) != one.randomBytes(8), "a stream of numbers, not one repeated")
        #expect(one.wallClock() == one.wallClock())
    }
}
