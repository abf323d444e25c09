import Testing

@testable import OnAirRateControl

/// The 720p ladder: f (1280x720, 600k...2.5M), h (640x360, 600k), q (320x180, 150k).
@Suite("SimulcastAllocator")
struct SimulcastAllocatorTests {
    func ladder() -> SimulcastAllocator {
        SimulcastAllocator(lowerBitrates: [600_000, 150_000], topMinimum: 600_000, topMaximum: 2_500_000)
    }

    @Test("plenty: every layer, the biggest gets the rest up to its maximum")
    func plenty() {
        var allocator = ladder()
        #expect(allocator.allocate(total: 5_000_000) == [2_500_000, 600_000, 150_000])
        #expect(allocator.allocate(total: 2_000_000) == [1_250_000, 600_000, 150_000])
        #expect(allocator.activeCount == 3 && allocator.maximumTotal == 3_250_000)
    }

    @Test("a shrinking uplink pauses the biggest layer first (below 60 % of its need), then the middle; the smallest always sends")
    func shrinking() {
        var allocator = ladder()
        #expect(allocator.allocate(total: 1_350_000) == [600_000, 600_000, 150_000])
        #expect(allocator.allocate(total: 1_200_000) == [450_000, 600_000, 150_000], "f keeps down to 750k + 360k")
        #expect(allocator.allocate(total: 1_100_000) == [0, 600_000, 150_000])
        #expect(allocator.allocate(total: 600_000) == [0, 450_000, 150_000], "h keeps down to 150k + 360k")
        #expect(allocator.allocate(total: 500_000) == [0, 0, 150_000])
        #expect(allocator.allocate(total: 100_000) == [0, 0, 100_000])
        #expect(allocator.activeCount == 1)
    }

    @Test("a paused layer resumes only with 20 % headroom over its need (no flapping at the threshold)")
    func hysteresis() {
        var allocator = ladder()
        _ = allocator.allocate(total: 400_000)
        #expect(allocator.activeCount == 1)
        #expect(allocator.allocate(total: 800_000) == [0, 0, 150_000], "750k needed, 900k to resume")
        #expect(allocator.allocate(total: 900_000) == [0, 600_000, 150_000])
        #expect(allocator.allocate(total: 1_500_000) == [0, 600_000, 150_000], "1.35M needed, 1.62M to resume")
        #expect(allocator.allocate(total: 1_620_000) == [870_000, 600_000, 150_000])
        #expect(allocator.allocate(total: 1_400_000) == [650_000, 600_000, 150_000], "active layers stay down to 1.11M")
    }

    @Test("the resume total is what the next paused layer needs, with its headroom")
    func resumeTotal() {
        var allocator = ladder()
        #expect(allocator.resumeTotal == nil)
        _ = allocator.allocate(total: 500_000)
        #expect(allocator.resumeTotal == 900_000, "q + h = 750k, x 1.2")
        _ = allocator.allocate(total: 900_000)
        #expect(allocator.resumeTotal == 1_620_000, "q + h + f's minimum = 1.35M, x 1.2")
    }

    @Test("one layer (no simulcast) takes everything up to its maximum")
    func single() {
        var allocator = SimulcastAllocator(lowerBitrates: [], topMinimum: 300_000, topMaximum: 2_500_000)
        #expect(allocator.allocate(total: 200_000) == [200_000])
        #expect(allocator.allocate(total: 3_000_000) == [2_500_000])
    }
}
