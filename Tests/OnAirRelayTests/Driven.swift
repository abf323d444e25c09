import OnAirWire
@testable import OnAirRelay

/// A reference to a value-type state machine, so that `#expect` and `#require` (which capture
/// their operands as constants) can drive its mutating methods:
/// `#expect(coalescer.request(now: t0))`. It forwards to the real machine; nothing is faked.
@dynamicMemberLookup
final class Driven<Machine> {
    private(set) var machine: Machine

    init(_ machine: Machine) { self.machine = machine }

    subscript<Value>(dynamicMember keyPath: KeyPath<Machine, Value>) -> Value { machine[keyPath: keyPath] }
}

extension Driven where Machine == TrackRewriter {
    func map(sequence: UInt16, timestamp: UInt32, startsKeyframe: Bool) -> (sequence: UInt16, timestamp: UInt32)? {
        machine.map(sequence: sequence, timestamp: timestamp, startsKeyframe: startsKeyframe)
    }

    func publisherSequence(forViewerSequence sequence: UInt16) -> UInt16? {
        machine.publisherSequence(forViewerSequence: sequence)
    }

    func viewerTimestamp(forPublisherTimestamp timestamp: UInt32) -> UInt32? {
        machine.viewerTimestamp(forPublisherTimestamp: timestamp)
    }
}

extension Driven where Machine == KeyframeRequestCoalescer {
    func request(now: MonoTime) -> Bool { machine.request(now: now) }
    func poll(now: MonoTime) -> Bool { machine.poll(now: now) }
    func keyframeArrived() { machine.keyframeArrived() }
}
