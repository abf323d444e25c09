/// One attempt as it is written to the delivery log: which delivery, when, how long it took,
/// what came back and what follows from it.
public struct AttemptOutcome: Sendable, Equatable {
    public var delivery: PendingDelivery
    /// Seconds since 1970 when the POST started.
    public var at: Double
    public var durationMs: Double
    public var result: AttemptResult
    public var decision: DeliveryDecision
}
