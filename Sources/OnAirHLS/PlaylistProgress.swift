/// How far a live Media Playlist has got, which is all the blocking-reload rules of
/// RFC 8216bis §6.2.5.2 need.
public struct PlaylistProgress: Equatable, Sendable {
    /// The newest complete Media Segment, nil before the first one.
    public var lastMediaSequence: Int?
    /// The newest published Partial Segment, nil before the first one.
    public var lastPart: PartPosition?
    /// EXT-X-ENDLIST is present: directives are ignored.
    public var hasEndList: Bool
    public var partTarget: Duration

    public init(lastMediaSequence: Int?, lastPart: PartPosition?, hasEndList: Bool, partTarget: Duration) {
        self.lastMediaSequence = lastMediaSequence
        self.lastPart = lastPart
        self.hasEndList = hasEndList
        self.partTarget = partTarget
    }

    /// The §6.2.5.2 rules, in order:
    /// - EXT-X-ENDLIST: the server MUST ignore `_HLS_msn` and `_HLS_part` (and `_HLS_skip`,
    ///   §6.2.5.1), so answer at once.
    /// - `_HLS_part` without `_HLS_msn`: MUST be Bad Request.
    /// - `_HLS_msn` more than two beyond the last segment, or `_HLS_part` beyond the last
    ///   part by more than the Advance Part Limit: SHOULD be Bad Request.
    /// - Otherwise wait until the segment (or part) exists; answer now if it does.
    public func decide(_ request: PlaylistRequest) -> BlockingReloadDecision {
        if hasEndList { return .respond(deltaUpdate: false) }
        if let reason = request.malformed { return .badRequest(reason) }
        guard let msn = request.mediaSequence else {
            if request.part != nil { return .badRequest("_HLS_part without _HLS_msn") }
            return .respond(deltaUpdate: request.deltaUpdate)
        }
        let last = lastMediaSequence ?? -1
        if msn > last + 2 {
            return .badRequest("_HLS_msn \(msn) is more than two segments after the last (\(last))")
        }
        let target: BlockingTarget
        if let part = request.part {
            let position = PartPosition(mediaSequence: msn, index: part)
            if partsBeyondLast(position) > 0, exceedsAdvancePartLimit(partsBeyondLast(position)) {
                return .badRequest("_HLS_part \(part) of \(msn) is beyond the Advance Part Limit")
            }
            target = .part(position)
        } else {
            target = .segment(msn)
        }
        return isSatisfied(target) ? .respond(deltaUpdate: request.deltaUpdate)
                                   : .wait(target, deltaUpdate: request.deltaUpdate)
    }

    /// Whether a held request can be answered. A Part Index past the last part of a
    /// complete segment means Part 0 of the next one (§6.2.5.2), which the position order
    /// already gives: no part (M, N) with N past the end exists, so only a part of a later
    /// segment compares greater.
    public func isSatisfied(_ target: BlockingTarget) -> Bool {
        if hasEndList { return true }
        switch target {
        case .segment(let msn):
            guard let last = lastMediaSequence else { return false }
            return last >= msn
        case .part(let position):
            guard let lastPart else { return false }
            return lastPart >= position
        }
    }

    /// A lower bound of how many parts `position` lies after the newest part: exact in
    /// the newest part's segment; for a later segment, its index plus one (the parts still
    /// to come in the current segment are not known yet).
    func partsBeyondLast(_ position: PartPosition) -> Int {
        let reference = lastPart ?? PartPosition(mediaSequence: (lastMediaSequence ?? -1) + 1, index: -1)
        if position.mediaSequence == reference.mediaSequence { return position.index - reference.index }
        if position.mediaSequence > reference.mediaSequence { return position.index + 1 }
        return 0
    }

    /// §6.2.5.2: the Advance Part Limit is three divided by the Part Target Duration if
    /// that is under one second, else three; compared in microseconds to stay exact.
    func exceedsAdvancePartLimit(_ parts: Int) -> Bool {
        let target = MediaTime.microseconds(partTarget)
        if target < 1_000_000 { return Int64(parts) * target > 3_000_000 }
        return parts > 3
    }
}
