import OnAirRTP

/// Records when each transport-wide sequence number arrived from a publisher and turns the
/// record into transport-cc feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1),
/// which is what a browser's send-side bandwidth estimator needs to raise its bitrate. Fixed
/// storage: recording a packet allocates nothing.
package struct TransportFeedbackRecorder: Sendable {
    /// Arrival time (µs) per extended sequence number modulo the window; -1 = not arrived.
    private var arrivals: [Int64]
    private var unwrapper = SequenceNumberUnwrapper()
    private var nextToReport: Int64?
    private var highest: Int64 = -1
    private var feedbackCount: UInt8 = 0
    private static let window = 2048

    package init() {
        arrivals = Array(repeating: -1, count: Self.window)
    }

    package var hasNews: Bool { nextToReport.map { $0 <= highest } ?? false }

    package mutating func record(sequence: UInt16, arrivalMicroseconds: Int64) {
        let extended = unwrapper.unwrap(sequence)
        if let next = nextToReport, extended < next { return }  // already reported as lost
        if nextToReport == nil { nextToReport = extended }
        if extended > highest {
            // Slots between the old highest and this one are now unknown, i.e. not arrived.
            var clear = max(highest + 1, extended - Int64(Self.window) + 1)
            while clear < extended {
                arrivals[Int(clear & Int64(Self.window - 1))] = -1
                clear += 1
            }
            highest = extended
        }
        arrivals[Int(extended & Int64(Self.window - 1))] = arrivalMicroseconds
        if let next = nextToReport, highest - next >= Int64(Self.window) {
            nextToReport = highest - Int64(Self.window) + 1
        }
    }

    /// Feedback for everything since the last call, or nil when nothing new arrived.
    package mutating func makeFeedback(senderSSRC: UInt32, mediaSSRC: UInt32) -> TransportWideFeedback? {
        guard let start = nextToReport, start <= highest else { return nil }
        var times: [Int64?] = []
        times.reserveCapacity(Int(highest - start + 1))
        for sequence in start...highest {
            let arrival = arrivals[Int(sequence & Int64(Self.window - 1))]
            times.append(arrival >= 0 ? arrival : nil)
        }
        // A lost run at the start carries no reference: begin at the first arrival.
        guard let firstArrived = times.firstIndex(where: { $0 != nil }) else { return nil }
        let base = start + Int64(firstArrived)
        let feedback = try? TransportWideFeedback(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: UInt16(truncatingIfNeeded: base),
            feedbackPacketCount: feedbackCount, arrivalTimesMicroseconds: Array(times[firstArrived...]))
        feedbackCount &+= 1
        nextToReport = highest + 1
        return feedback
    }
}
