import Testing

@testable import OnAirBroadcast

@Suite("SimulcastLadder: the layers for a picture size")
struct SimulcastLadderTests {
    @Test("720p: f, h 640x360, q 320x180; 360p: f, h; 240p: f only")
    func layersFollowTheInput() {
        let hd = SimulcastLadder(width: 1280, height: 720, lowerBitrates: [600_000, 150_000])
        #expect(hd.rungs.map(\.rid) == ["f", "h", "q"] && hd.rungs.map(\.bitrate) == [0, 600_000, 150_000])
        #expect(hd.size(of: 1, width: 1280, height: 720) == (640, 360) && hd.size(of: 2, width: 1280, height: 720) == (320, 180))
        #expect(SimulcastLadder(width: 640, height: 360, lowerBitrates: [600_000, 150_000]).rungs.map(\.rid) == ["f", "h"])
        #expect(SimulcastLadder(width: 426, height: 240, lowerBitrates: [600_000, 150_000]).rungs.map(\.rid) == ["f"])
        #expect(SimulcastLadder(width: 1920, height: 1080, lowerBitrates: [900_000]).rungs.map(\.rid) == ["f", "h"])
    }

    @Test("odd halves are made even (I420 needs even sizes)")
    func evenSizes() {
        let ladder = SimulcastLadder(width: 1366, height: 766, lowerBitrates: [600_000, 150_000])
        #expect(ladder.size(of: 1, width: 1366, height: 766) == (682, 382))
        #expect(ladder.size(of: 2, width: 1366, height: 766) == (340, 190))
    }
}
