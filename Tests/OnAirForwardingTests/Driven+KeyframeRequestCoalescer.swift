import OnAirTestSupport
import OnAirWire
@testable import OnAirForwarding

extension Driven where Machine == KeyframeRequestCoalescer {
    func request(now: MonoTime, prompt: Bool = false) -> Bool { machine.request(now: now, prompt: prompt) }
    func poll(now: MonoTime) -> Bool { machine.poll(now: now) }
    func keyframeArrived() { machine.keyframeArrived() }
}
