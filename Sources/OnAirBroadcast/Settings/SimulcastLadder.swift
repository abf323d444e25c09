/// The simulcast encodings for a picture size (RFC 8853): the full picture ("f"), then each
/// half as wide and high ("h", "q"), as long as it stays at least 180 lines high and a bitrate
/// is given for it. 1280x720 gives f + h (640x360) + q (320x180); 640x360 gives f + h.
struct SimulcastLadder: Sendable, Equatable {
    struct Rung: Sendable, Equatable {
        var rid: String
        /// Bit/s of a lower layer; the top layer's comes from the congestion controller.
        var bitrate: Int
    }

    static let rids = ["f", "h", "q", "e"]
    static let minimumHeight = 180
    static let single = SimulcastLadder(rungs: [Rung(rid: "", bitrate: 0)])

    var rungs: [Rung]

    init(rungs: [Rung]) { self.rungs = rungs }

    /// - Parameter lowerBitrates: bit/s of the half, quarter, ... size layers.
    init(width: Int, height: Int, lowerBitrates: [Int]) {
        var rungs = [Rung(rid: Self.rids[0], bitrate: 0)]
        for (index, bitrate) in lowerBitrates.prefix(Self.rids.count - 1).enumerated() {
            guard height >> (index + 1) >= Self.minimumHeight else { break }
            rungs.append(Rung(rid: Self.rids[index + 1], bitrate: bitrate))
        }
        self.rungs = rungs
    }

    /// Layer `index`'s picture size: halved `index` times, kept even (I420).
    func size(of index: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        ((width >> index) & ~1, (height >> index) & ~1)
    }
}
