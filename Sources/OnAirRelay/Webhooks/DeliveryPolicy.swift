import Foundation

/// What came back from one attempt to POST an event to a subscriber.
public enum AttemptResult: Sendable, Equatable {
    /// An HTTP response: its status code and its `Retry-After` header, if any.
    case response(status: Int, retryAfter: String?)
    /// No response: refused connection, DNS failure, timeout.
    case failed(String)

    /// The HTTP status, for the delivery log (nil without a response).
    var status: Int? {
        if case .response(let code, _) = self { return code }
        return nil
    }

    /// Why there was no response, for the delivery log.
    var failure: String? {
        if case .failed(let message) = self { return message }
        return nil
    }
}

/// What to do with a delivery after an attempt.
public enum DeliveryDecision: Sendable, Equatable {
    case delivered
    /// Try again at `at` (seconds since 1970).
    case retry(at: Double, reason: String)
    /// The schedule is used up: the delivery failed for good.
    case giveUp(reason: String)
    /// 410 Gone: the subscriber asked us to stop; the subscription is disabled.
    case disable(reason: String)
}

/// Turns an attempt's result into the next step (Standard Webhooks "Retry schedule" and
/// Svix behaviour: 2xx is success, 410 disables the endpoint, `Retry-After` is honoured).
public struct DeliveryPolicy: Sendable, Equatable {
    public var schedule: RetrySchedule
    /// The longest `Retry-After` that is followed: a receiver asking for a week gets a day.
    public var maxRetryAfter: Double = 86_400

    public init(schedule: RetrySchedule) { self.schedule = schedule }

    /// - Parameters:
    ///   - attempts: attempts made so far, including this one.
    ///   - random: uniform in [0, 1), for the jitter.
    public func decide(_ result: AttemptResult, attempts: Int, now: Double, random: Double) -> DeliveryDecision {
        let reason: String
        var notBefore = now
        switch result {
        case .response(let status, _) where (200...299).contains(status):
            return .delivered
        case .response(410, _):
            return .disable(reason: "the subscriber answered 410 Gone")
        case .response(let status, let retryAfter):
            reason = "HTTP \(status)"
            // RFC 9110 §10.2.3: not before the time the receiver asked for (429 and 503 send it).
            if let retryAfter, let wait = Self.retryAfterSeconds(retryAfter, now: now) {
                notBefore = now + min(wait, maxRetryAfter)
            }
        case .failed(let message):
            reason = message
        }
        guard let delay = schedule.delay(beforeAttempt: attempts + 1, random: random) else {
            return .giveUp(reason: "\(reason); gave up after \(attempts) attempts")
        }
        return .retry(at: max(now + delay, notBefore), reason: reason)
    }

    /// RFC 9110 §10.2.3 `Retry-After`: delay-seconds, or an HTTP-date (IMF-fixdate, §5.6.7).
    /// Returns the wait in seconds from `now`, nil when the value is neither.
    public static func retryAfterSeconds(_ value: String, now: Double) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = UInt64(text) { return Double(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince1970 - now)
    }
}
