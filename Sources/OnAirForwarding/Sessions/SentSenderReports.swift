import OnAirWire

/// The last few sender reports sent on one SSRC, by their compact NTP time (RFC 3550 §6.4.1
/// LSR), with when each went out. A receiver report names the last SR that *arrived*, which
/// is not always the last one sent: a probe's report can be followed by the publisher's own
/// before the receiver reports on it.
package struct SentSenderReports: Sendable {
    private var entries: [(compact: UInt32, sentAt: MonoTime)] = []
    private var next = 0
    private static let capacity = 4

    package init() {}

    package mutating func record(compact: UInt32, sentAt: MonoTime) {
        if entries.count < Self.capacity {
            entries.append((compact, sentAt))
        } else {
            entries[next] = (compact, sentAt)
        }
        next = (next + 1) % Self.capacity
    }

    /// When the report with this LSR went out (the latest such, should two share it).
    package func sentAt(compact: UInt32) -> MonoTime? {
        var found: MonoTime?
        for entry in entries where entry.compact == compact {
            if found.map({ entry.sentAt > $0 }) ?? true { found = entry.sentAt }
        }
        return found
    }
}
