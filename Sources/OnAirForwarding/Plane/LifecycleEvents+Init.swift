/// Public initialisers for the lifecycle values, so that tools outside the module (the
/// webhook benchmark, load generators) can drive a ``WebhookLifecycleObserver`` the way the
/// engine does. (`session:` rather than `sessionID:` so as not to clash with the synthesized
/// internal memberwise initialisers.)
extension StreamStarted {
    public init(room: String, session sessionID: String, codecs: [String], at: Double) {
        self.room = room
        self.sessionID = sessionID
        self.codecs = codecs
        self.at = at
    }
}

extension StreamEnded {
    public init(room: String, session sessionID: String, reason: StreamEndReason, durationSeconds: Double, bytesIn: UInt64,
                bytesOut: UInt64, peakViewers: Int, at: Double) {
        self.room = room
        self.sessionID = sessionID
        self.reason = reason
        self.durationSeconds = durationSeconds
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.peakViewers = peakViewers
        self.at = at
    }
}
