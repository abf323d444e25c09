import OnAirHLS
import Testing

/// When a part is published relative to its last frame: the moment that frame is appended
/// when the next one could not fit, otherwise only when the next frame arrives. The relay's
/// default part target (0.33334 s) is chosen so that 30 fps frames tile a 2 s GOP in whole
/// parts; 0.333 s cannot, and the last part of every segment waits for the IDR.
@Suite("Packager: parts close on their last frame")
struct PartClosingTests {
    /// Appends `frames` frames of a 30 fps stream with an IDR every 60 frames; returns, per
    /// published part, whether it was published by the append of its own last frame.
    func closings(partTarget: Duration, frames: Int = 300) throws -> [Bool] {
        let record: [UInt8] = [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE1, 0x00, 0x04, 0x67, 0x42, 0xC0, 0x1E, 0x01, 0x00, 0x02, 0x68, 0xCE]
        let tracks = try HLSTrackConfiguration(video: AVCSampleEntry(width: 64, height: 64, decoderConfiguration: record), audio: nil)
        var packager = try LLHLSPackager(configuration: LLHLSConfiguration(partTarget: partTarget, segmentTarget: .seconds(2)),
                                         tracks: tracks)
        var result: [Bool] = []
        for index in 0..<frames {
            let events = try packager.append(VideoAccessUnit(data: [0, 0, 0, 1, 0x65], timestamp: Int64(index) * 3000,
                                                             isKeyframe: index % 60 == 0))
            let published = events.filter { if case .partPublished = $0 { return true } else { return false } }.count
            guard published > 0 else { continue }
            // Published by the frame just appended iff no frame is left waiting in the open part.
            result += Array(repeating: false, count: published - 1) + [packager.openPartSampleCount == 0]
        }
        return result
    }

    @Test("0.33334 s: ten frames a part, six parts a segment, each published by its own last frame")
    func tiledParts() throws {
        let parts = try closings(partTarget: .microseconds(333_340))
        #expect(parts.count == 30 && parts.allSatisfy { $0 })
    }

    @Test("0.333 s: nine frames a part; the six-frame last part of each segment waits for the next IDR")
    func untiledParts() throws {
        let parts = try closings(partTarget: .milliseconds(333))
        let late = parts.enumerated().filter { !$0.element }.map(\.offset)
        #expect(parts.count == 34 && late == [6, 13, 20, 27], "\(parts.count) \(late)")  // the fifth segment is still open
    }
}
