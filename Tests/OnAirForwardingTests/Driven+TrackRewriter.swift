import OnAirForwarding
import OnAirTestSupport

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

