/// The delay-based detector's verdict on the path (draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// One-way delay is growing: a queue is building, we send more than the path carries.
    case overuse
    /// Delay is steady.
    case normal
    /// Delay is shrinking: a queue is draining; hold the rate so it can drain.
    case underuse

    public var description: String { rawValue }
}
