import OnAirRTP
import OnAirWire

/// A publisher that behaves like `broadcast --simulcast`: 30 frames/s on every layer (an IDR
/// on a layer when the plane asks for one with a PLI or FIR), Opus every 20 ms, sender
/// reports every 500 ms. Driven by the harness clock. `keyframeDelay`: how long after a
/// request the IDR comes (a real encoder and the way back to the relay take 100-300 ms).
package final class LiveStream {
    unowned let harness: PlaneHarness
    package let publisher: TestPublisher
    private var nextFrame: MonoTime
    private var nextAudio: MonoTime
    private var nextReport: MonoTime
    private var handledRTCP = 0
    private var wanted: Set<Int>
    private let keyframeDelay: Duration
    /// Requested keyframes not yet due: the layer and when it is sent.
    private var delayedKeyframes: [(layer: Int, due: MonoTime)] = []
    /// When the plane asked for a keyframe of each layer.
    package private(set) var keyframeRequests: [Int: [MonoTime]] = [:]

    /// `rtx`: a single-layer publisher that answers NACKs with RTX.
    package init(_ harness: PlaneHarness, rids: [String] = ["f", "h", "q"], keyframeDelay: Duration = .zero, rtx: Bool = false) throws {
        self.harness = harness
        self.keyframeDelay = keyframeDelay
        publisher = try harness.publish(rids: rids, rtx: rtx)
        nextFrame = harness.now
        nextAudio = harness.now
        nextReport = harness.now
        wanted = Set(publisher.layers.indices)
        harness.publishing = { now in self.step(now) }  // the harness keeps the stream
    }

    private func step(_ now: MonoTime) {
        let rtcp = publisher.peer.rtcp
        for packet in rtcp[handledRTCP...] {
            let ssrc: UInt32?
            switch packet {
            case .genericNACK(let nack):
                publisher.answer(nack)
                ssrc = nil
            case .pictureLossIndication(let pli): ssrc = pli.mediaSSRC
            case .fullIntraRequest(let fir): ssrc = fir.entries.first?.ssrc
            default: ssrc = nil
            }
            if let ssrc, let layer = publisher.layer(ofSSRC: ssrc) {
                delayedKeyframes.append((layer, now + keyframeDelay))
                keyframeRequests[layer, default: []].append(now)
            }
        }
        handledRTCP = rtcp.count
        for request in delayedKeyframes where request.due <= now { wanted.insert(request.layer) }
        delayedKeyframes.removeAll { $0.due <= now }
        if now >= nextReport {
            publisher.sendReports(at: now)
            nextReport = nextReport + .milliseconds(500)
        }
        if now >= nextAudio {
            publisher.sendAudio(at: now)
            nextAudio = nextAudio + .milliseconds(20)
        }
        if now >= nextFrame {
            publisher.sendFrame(at: now, keyframes: wanted)
            wanted = []
            nextFrame = nextFrame + .nanoseconds(33_333_333)
        }
    }

    /// Keyframe requests for `layer` at or after `time`.
    package func requests(layer: Int, since time: MonoTime) -> Int {
        keyframeRequests[layer, default: []].count { $0 >= time }
    }
}
