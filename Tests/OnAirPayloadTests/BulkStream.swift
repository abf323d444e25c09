import Foundation
import OnAirPayload

/// A real x264 stream for the large tests: 2000 access units of 640x360 test pattern,
/// an IDR every 30 frames, two slices per picture and an access unit delimiter before
/// each access unit (which is how it is split into access units). Encoded once per run.
enum BulkStream {
    struct Stream: Sendable {
        var url: URL
        var bytes: [UInt8]
        /// NAL units of each access unit, the AUD first.
        var accessUnits: [[[UInt8]]]
    }

    static let frames = 2000

    static let x264: Result<Stream, ToolFailure> = {
        do {
            let url = try MediaTools.x264(size: "640x360", frames: frames, profile: "baseline",
                                          x264Params: "aud=1:slices=2:keyint=30:crf=16")
            let bytes = try MediaTools.bytes(of: url)
            var units: [[[UInt8]]] = []
            for nal in AnnexB.split(bytes) {
                if H264NALUnitHeader(nal[nal.startIndex]).type == .accessUnitDelimiter || units.isEmpty {
                    units.append([])
                }
                units[units.count - 1].append(Array(nal))
            }
            return .success(Stream(url: url, bytes: bytes, accessUnits: units))
        } catch {
            return .failure(ToolFailure(description: "\(error)"))
        }
    }()

    static func isIDR(_ unit: [[UInt8]]) -> Bool {
        unit.contains { H264NALUnitHeader($0[0]).type == .idrSlice }
    }
}
