import Synchronization

/// Why the broadcast is asked to end, set from a signal handler or a timer, read by the media
/// loop between packets (an atomic: no lock on the loop).
public final class StopSignal: Sendable {
    public enum Reason: Int, Sendable {
        case none = 0
        case interrupted = 1  // SIGINT (Ctrl-C)
        case terminated = 2  // SIGTERM (`broadcast stop`, service managers)
    }

    private let value = Atomic<Int>(0)
    private let interrupts = Atomic<Int>(0)

    public init() {}

    public func request(_ reason: Reason) {
        _ = value.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed)
    }

    /// A SIGINT or SIGTERM arrived (from the signal handler: atomics only). Both ask for the
    /// clean end; true only for a second SIGINT, a person's "now": exit at once. A SIGTERM
    /// before the terminal's SIGINT (the run script stopping broadcast as the same Ctrl-C
    /// reaches it, on another thread) must not count as a second Ctrl-C.
    public func receive(isInterrupt: Bool) -> Bool {
        request(isInterrupt ? .interrupted : .terminated)
        guard isInterrupt else { return false }
        return interrupts.wrappingAdd(1, ordering: .relaxed).newValue > 1
    }

    public var reason: Reason { Reason(rawValue: value.load(ordering: .relaxed)) ?? .none }
    public var isRequested: Bool { value.load(ordering: .relaxed) != 0 }
}
