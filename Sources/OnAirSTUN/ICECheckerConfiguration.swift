/// Timers and constants of ``ICEControllingChecker``, defaulting to the RFC values.
public struct ICECheckerConfiguration: Hashable, Sendable {
    /// RFC 8489 §6.2.1 initial retransmission timeout (doubles on each retransmission).
    public var rto: Duration = .milliseconds(500)
    /// RFC 8489 §6.2.1 Rc: transmissions of one request in all.
    public var maxTransmissions: Int = 7
    /// RFC 8489 §6.2.1 Rm: after the last transmission wait Rm·RTO before giving up.
    public var finalWaitMultiplier: Int = 16
    /// RFC 8445 §14.2 Ta: at most one new check per Ta.
    public var pacing: Duration = .milliseconds(50)
    /// RFC 7675 §5.1: consent checks every this long, randomised to 0.8-1.2 times it.
    public var consentInterval: Duration = .seconds(5)
    /// RFC 7675 §5.1: consent is lost when no check was answered for this long.
    public var consentTimeout: Duration = .seconds(30)
    /// RFC 8445 §7.1.1 PRIORITY sent in checks: what a peer-reflexive candidate of ours would
    /// get, type preference 110, local preference 65535, component 1 (§5.1.2.1).
    public var priority: UInt32 = 110 << 24 | 65535 << 8 | (256 - 1)
    /// Sent as SOFTWARE in requests when set (RFC 8489 §14.14).
    public var software: String? = nil

    public init() {}
}
