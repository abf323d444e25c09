import OnAirWire
import Testing
@testable import OnAirForwarding

/// ``NACKLossMeter``: loss from what a viewer NACKs, span by span.
@Suite("NACK loss meter")
struct NACKLossMeterTests {
    static let t0 = MonoTime.seconds(50)

    /// Sends `packets` from `first`, every `lose`-th lost (NACKed `delay` updates later, as
    /// a receiver does once a later packet shows the gap); 100 ms updates.
    static func run(_ meter: inout NACKLossMeter, first: UInt16, updates: Int, perUpdate: Int, lose: Int?,
                    delay: Int = 2, from start: MonoTime = t0) -> [Double?] {
        var next = first
        var pending: [(due: Int, sequences: [UInt16])] = []
        var figures: [Double?] = []
        for update in 0..<updates {
            var lost: [UInt16] = []
            for _ in 0..<perUpdate {
                meter.sent(next, startsLayer: false)
                if let lose, Int(next &- first) % lose == 0 { lost.append(next) }
                next &+= 1
            }
            pending.append((update + delay, lost))
            for batch in pending where batch.due == update { meter.nacked(batch.sequences) }
            pending.removeAll { $0.due == update }
            figures.append(meter.loss(now: start + .milliseconds(100 * update)))
        }
        return figures
    }

    @Test("a clean link reads 0 %, a link that loses every other packet 50 %, across the sequence wrap")
    func figures() {
        var clean = NACKLossMeter()
        let cleanFigures = Self.run(&clean, first: 65_000, updates: 20, perUpdate: 29, lose: nil)
        #expect(cleanFigures.compactMap { $0 }.allSatisfy { $0 == 0 })
        #expect(cleanFigures.suffix(10).allSatisfy { $0 != nil }, "\(cleanFigures)")

        var half = NACKLossMeter()
        let halfFigures = Self.run(&half, first: 65_400, updates: 20, perUpdate: 29, lose: 2).suffix(10).compactMap { $0 }
        #expect(halfFigures.count >= 5)
        #expect(halfFigures.allSatisfy { abs($0 - 0.5) < 0.05 }, "\(halfFigures)")
    }

    @Test("NACKs repeated, or of sequences before a layer started, are not counted again")
    func repeatsAndRestart() {
        var meter = NACKLossMeter()
        for sequence in UInt16(0)..<40 { meter.sent(sequence, startsLayer: false) }
        meter.nacked([10, 20])
        meter.nacked([10, 20, 30])
        _ = meter.loss(now: Self.t0)
        #expect(meter.loss(now: Self.t0 + .milliseconds(300)) == 3.0 / 31.0, "the span: 0 through 30")
        // A new layer: NACKs of the old one say nothing about it.
        meter.sent(100, startsLayer: true)
        for sequence in UInt16(101)..<140 { meter.sent(sequence, startsLayer: false) }
        meter.nacked([35, 38])
        #expect(meter.loss(now: Self.t0 + .milliseconds(400)) == nil)
        meter.nacked([120])
        #expect(meter.loss(now: Self.t0 + .milliseconds(700)) == 1.0 / 21.0, "the span: 100 through 120")
    }

    @Test("a figure goes stale when nothing more is sent (video paused)")
    func stale() {
        var meter = NACKLossMeter()
        _ = Self.run(&meter, first: 0, updates: 10, perUpdate: 29, lose: 1)
        #expect(meter.loss(now: Self.t0 + .milliseconds(900)) ?? 0 > 0.9)
        #expect(meter.loss(now: Self.t0 + .milliseconds(1_500)) == nil)
    }

    @Test("three spans together: a keyframe that overflows a link carrying a third of the layer is not a deep dip")
    func sustained() {
        var meter = NACKLossMeter()
        var next: UInt16 = 1_000
        var now = Self.t0
        // Spans of 60 packets losing 54 (a keyframe), then 40 of 60, 40 of 60: 67 % together.
        func span(lost: Int) {
            var lostSequences: [UInt16] = []
            for index in 0..<60 {
                meter.sent(next, startsLayer: false)
                if index >= 60 - lost { lostSequences.append(next) }
                next &+= 1
            }
            // The receiver learns of the last losses only from a later packet.
            meter.sent(next, startsLayer: false)
            next &+= 1
            meter.nacked(lostSequences)
            now = now + .milliseconds(300)
            _ = meter.loss(now: now)
        }
        meter.sent(next &- 1, startsLayer: true)
        _ = meter.loss(now: now)
        span(lost: 54)
        #expect(meter.sustainedLoss(now: now) == nil, "one span is no run")
        span(lost: 40)
        span(lost: 40)
        #expect(abs((meter.sustainedLoss(now: now) ?? 1) - 134.0 / 182.0) < 0.02)
        span(lost: 54)
        span(lost: 54)
        span(lost: 54)
        #expect((meter.sustainedLoss(now: now) ?? 0) > 0.85)
        #expect(meter.sustainedLoss(now: now + .seconds(1)) == nil, "stale once nothing more is judged")
    }
}
