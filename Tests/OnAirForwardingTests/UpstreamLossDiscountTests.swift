import OnAirWire
import Testing
@testable import OnAirForwarding

/// Receiver reports less what the relay never had to send.
@Suite("UpstreamLossDiscount")
struct UpstreamLossDiscountTests {
    @Test("gaps the relay passed on are taken out of the fraction lost; the viewer's own loss stays")
    func discount() {
        var discount = UpstreamLossDiscount()
        // The first report has no interval of ours to compare with: taken as it is.
        #expect(discount.fraction(fractionLost: 64, extendedHighest: 1_000, notSent: 0) == 0.25)
        // 200 expected, 50 lost (64/256), 30 of them never sent by the relay: 20 lost on the link.
        #expect(abs(discount.fraction(fractionLost: 64, extendedHighest: 1_200, notSent: 30) - 0.1) < 1e-9)
        // All of the loss upstream: none left.
        #expect(discount.fraction(fractionLost: 32, extendedHighest: 1_400, notSent: 60) == 0)
        // More skipped than reported lost (late packets filled some gaps after the report): 0, not negative.
        #expect(discount.fraction(fractionLost: 0, extendedHighest: 1_600, notSent: 100) == 0)
        // Nothing new expected (a repeated report): as reported.
        #expect(discount.fraction(fractionLost: 13, extendedHighest: 1_600, notSent: 100) == 13.0 / 256)
        // Across the 32-bit wrap of the extended sequence number.
        var wrapping = UpstreamLossDiscount()
        _ = wrapping.fraction(fractionLost: 0, extendedHighest: UInt32.max - 99, notSent: 0)
        #expect(abs(wrapping.fraction(fractionLost: 128, extendedHighest: 100, notSent: 50) - 0.25) < 1e-9)
    }

    @Test("TrackRewriter counts the sequence numbers it passes over, less late packets that fill them")
    func notSentCount() {
        var rewriter = TrackRewriter(ssrc: 1, payloadType: 96, waitsForKeyframe: false, initialSequence: 100, initialTimestamp: 0)
        _ = rewriter.map(sequence: 65_534, timestamp: 0, startsKeyframe: true)
        _ = rewriter.map(sequence: 65_535, timestamp: 0, startsKeyframe: false)
        #expect(rewriter.sequencesNotSent == 0)
        // 0, 1, 2 lost on the way in (across the wrap), 3 arrives.
        _ = rewriter.map(sequence: 3, timestamp: 0, startsKeyframe: false)
        #expect(rewriter.sequencesNotSent == 3)
        // 1 arrives late (a repair): one fewer never sent.
        _ = rewriter.map(sequence: 1, timestamp: 0, startsKeyframe: false)
        #expect(rewriter.sequencesNotSent == 2)
        // Before the viewer's first packet: not the viewer's, not counted.
        _ = rewriter.map(sequence: 65_000, timestamp: 0, startsKeyframe: false)
        #expect(rewriter.sequencesNotSent == 2)
    }
}
