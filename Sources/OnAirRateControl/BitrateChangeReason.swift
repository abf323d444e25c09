/// Why ``BitrateController/target`` last changed, for the status line and logs.
public enum BitrateChangeReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not changed yet: the configured start bitrate.
    case start
    /// Receiver reports showed more than 10% loss (draft-ietf-rmcat-gcc-02 §6).
    case loss
    /// The receiver's REMB is below the target (draft-alvestrand-rmcat-remb-03).
    case remb
    /// Transport-cc feedback showed a growing queue (draft-ietf-rmcat-gcc-02 §5.4).
    case delayOveruse = "delay-overuse"
    /// Clean reports (loss below 2%, delay steady): probing upwards.
    case cleanIncrease = "clean"
    /// A probe (a burst above the target) reached the receiver without loss or a growing
    /// queue: the path carries at least the probed rate (libwebrtc's probe-based estimate).
    case probe

    public var description: String { rawValue }
}
