import OnAirWire

/// Sleeping between deadlines, and the ICE + DTLS wait before media: shared by `broadcast start`
/// and `broadcast doctor`, so both wake for the same timers.
extension PublishingConnection {
    /// How the wait for ICE + DTLS ended.
    enum ConnectOutcome: Equatable {
        case connected
        case stopped
        case closed(String)
        case timedOut
    }

    /// Why the session closed, for messages ("closed" when it did not say).
    var closeDescription: String { closeReason.map { "\($0)" } ?? "closed" }

    /// Serves the socket until DTLS is up (SRTP keys installed), the session closes, `timeout`
    /// nanoseconds pass, or `stopRequested` says so.
    func awaitConnected(timeout: UInt64, stopRequested: () -> Bool) -> ConnectOutcome {
        let deadline = Clocks.monotonic() + timeout
        while !isConnected {
            if stopRequested() { return .stopped }
            if isClosed { return .closed(closeDescription) }
            if Clocks.monotonic() > deadline { return .timedOut }
            sleep(mediaDue: deadline)
            service(now: MonoTime.now())
        }
        return .connected
    }

    /// Waits on the socket until a datagram arrives or the next deadline: `mediaDue`, a paced
    /// packet or a session timer, at most 20 ms. Rounded up to whole milliseconds: waking a little
    /// late costs nothing, waking early would spin.
    func sleep(mediaDue: UInt64) {
        let now = Clocks.monotonic()
        var until = min(mediaDue, now + 20_000_000)
        if let paced = nextPacedRelease { until = min(until, paced) }
        if let timer = session.nextTimeout?.nanoseconds { until = min(until, timer) }
        socket.wait(timeoutMilliseconds: until > now ? Int32((until - now + 999_999) / 1_000_000) : 0)
    }
}
