/// Presence changes waiting to be announced, and when the last batch went out. A member who
/// joins and leaves inside one batch is announced not at all.
struct PresenceBatch {
    private(set) var joinedMembers: [ServerFrame.Member] = []
    private(set) var leftMembers: [ServerFrame.Member] = []
    private var lastSent: Double?
    var timerPending = false

    var hasChanges: Bool { !joinedMembers.isEmpty || !leftMembers.isEmpty }

    mutating func joined(_ member: ServerFrame.Member) {
        joinedMembers.append(member)
    }

    mutating func left(_ member: ServerFrame.Member) {
        if let index = joinedMembers.firstIndex(of: member) {
            joinedMembers.remove(at: index)
        } else {
            leftMembers.append(member)
        }
    }

    /// nil when a batch may go out at `now`, else the seconds to wait.
    func secondsUntilDue(now: Double, interval: Double) -> Double? {
        guard let lastSent else { return nil }
        let due = lastSent + interval
        return now >= due ? nil : due - now
    }

    mutating func take(now: Double) -> (joined: [ServerFrame.Member], left: [ServerFrame.Member]) {
        defer {
            joinedMembers = []
            leftMembers = []
            lastSent = now
        }
        return (joinedMembers, leftMembers)
    }
}
