import Testing

@testable import OnAirHLS

/// RFC 8216bis §6.2.5.2 as a decision table. The playlist: segments up to 10 complete,
/// segment 11 in progress with parts 0-3 out, parts of 0.333 s (Advance Part Limit 3/0.333 ≈ 9).
@Suite("Blocking playlist reload (RFC 8216bis §6.2.5.2)")
struct BlockingReloadTests {
    static let live = PlaylistProgress(lastMediaSequence: 10, lastPart: PartPosition(mediaSequence: 11, index: 3),
                                       hasEndList: false, partTarget: .milliseconds(333))

    static func decide(_ msn: String?, _ part: String?, skip: String? = nil,
                       _ progress: PlaylistProgress = live) -> BlockingReloadDecision {
        progress.decide(PlaylistRequest(msn: msn, part: part, skip: skip))
    }

    static func waitPart(_ msn: Int, _ index: Int, delta: Bool = false) -> BlockingReloadDecision {
        .wait(.part(PartPosition(mediaSequence: msn, index: index)), deltaUpdate: delta)
    }

    static func isBadRequest(_ decision: BlockingReloadDecision) -> Bool {
        if case .badRequest = decision { return true }
        return false
    }

    @Test func plainAndDeltaRequestsAnswerAtOnce() {
        #expect(Self.decide(nil, nil) == .respond(deltaUpdate: false))
        #expect(Self.decide(nil, nil, skip: "YES") == .respond(deltaUpdate: true))
        #expect(Self.decide(nil, nil, skip: "v2") == .respond(deltaUpdate: true))
        #expect(Self.decide(nil, nil, skip: "NO") == .respond(deltaUpdate: false))
    }

    /// §6.2.5.2: "_HLS_part directive but no _HLS_msn directive ... MUST return Bad Request".
    @Test func partWithoutMSNIsBadRequest() {
        #expect(Self.isBadRequest(Self.decide(nil, "2")))
    }

    @Test func malformedDirectivesAreBadRequests() {
        for value in ["x", "-1", "1.5", ""] {
            #expect(Self.isBadRequest(Self.decide(value, nil)), "msn \(value)")
            #expect(Self.isBadRequest(Self.decide("11", value)), "part \(value)")
        }
    }

    @Test func segmentRequests() {
        #expect(Self.decide("10", nil) == .respond(deltaUpdate: false))          // exists
        #expect(Self.decide("3", nil) == .respond(deltaUpdate: false))           // older, even if gone (§6.2.5.2)
        #expect(Self.decide("11", nil, skip: "YES") == .wait(.segment(11), deltaUpdate: true))
        #expect(Self.decide("12", nil) == .wait(.segment(12), deltaUpdate: false))   // last + 2: still allowed
        #expect(Self.isBadRequest(Self.decide("13", nil)))                          // more than two beyond
    }

    @Test func partRequests() {
        #expect(Self.decide("11", "3") == .respond(deltaUpdate: false))
        #expect(Self.decide("11", "0") == .respond(deltaUpdate: false))
        #expect(Self.decide("11", "4") == Self.waitPart(11, 4))                 // the next part: the usual case
        #expect(Self.decide("11", "12") == Self.waitPart(11, 12))               // 9 ahead: 9 × 0.333 s ≤ 3 s
        #expect(Self.isBadRequest(Self.decide("11", "13")))                      // 10 ahead: beyond the limit
        #expect(Self.decide("12", "0") == Self.waitPart(12, 0))
        #expect(Self.decide("12", "8") == Self.waitPart(12, 8))
        #expect(Self.isBadRequest(Self.decide("12", "9")))
        #expect(Self.isBadRequest(Self.decide("13", "0")))
    }

    /// §6.2.5.2: a Part Index past the last part of its (complete) segment is Part 0 of
    /// the next segment, which exists here.
    @Test func partPastAFinishedSegmentRollsForward() {
        #expect(Self.decide("10", "7") == .respond(deltaUpdate: false))
        #expect(Self.decide("5", "99") == .respond(deltaUpdate: false))
    }

    @Test func heldRequestsAreReleasedByProgress() {
        let target = BlockingTarget.part(PartPosition(mediaSequence: 11, index: 4))
        #expect(!Self.live.isSatisfied(target))
        var progress = Self.live
        progress.lastPart = PartPosition(mediaSequence: 11, index: 4)
        #expect(progress.isSatisfied(target))
        // Segment 11 ended after part 3 (an IDR cut it): part 11.4 means part 12.0.
        progress.lastPart = PartPosition(mediaSequence: 12, index: 0)
        progress.lastMediaSequence = 11
        #expect(progress.isSatisfied(target))
        #expect(progress.isSatisfied(.segment(11)))
        #expect(!progress.isSatisfied(.segment(12)))
    }

    /// §6.2.5.2 and §6.2.5.1: once EXT-X-ENDLIST is there, every directive is ignored and
    /// every held request is released.
    @Test func endListIgnoresDirectives() {
        var ended = Self.live
        ended.hasEndList = true
        for (msn, part) in [("13", nil), ("11", "99"), (nil, "2"), ("x", nil), ("40", "0")] as [(String?, String?)] {
            #expect(Self.decide(msn, part, skip: "YES", ended) == .respond(deltaUpdate: false))
        }
        #expect(ended.isSatisfied(.segment(1000)))
        #expect(ended.isSatisfied(.part(PartPosition(mediaSequence: 1000, index: 0))))
    }

    @Test func beforeAnythingIsPublished() {
        let empty = PlaylistProgress(lastMediaSequence: nil, lastPart: nil, hasEndList: false, partTarget: .milliseconds(333))
        #expect(Self.decide("0", nil, empty) == .wait(.segment(0), deltaUpdate: false))
        #expect(Self.decide("1", nil, empty) == .wait(.segment(1), deltaUpdate: false))
        #expect(Self.isBadRequest(Self.decide("2", nil, empty)))
        #expect(Self.decide("0", "0", empty) == Self.waitPart(0, 0))
        #expect(Self.decide("0", "8", empty) == Self.waitPart(0, 8))
        #expect(Self.isBadRequest(Self.decide("0", "9", empty)))
    }

    /// With parts of a second or more the Advance Part Limit is three parts.
    @Test func advancePartLimitForLongParts() {
        var progress = Self.live
        progress.partTarget = .seconds(1)
        #expect(Self.decide("11", "6", progress) == Self.waitPart(11, 6))
        #expect(Self.isBadRequest(Self.decide("11", "7", progress)))
    }
}
