/// Why the packager refused an input.
public enum HLSPackagerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A configuration value out of range (the reason says which).
    case invalidConfiguration(String)
    /// A sample's timestamp is not after the previous one of its track; it was dropped.
    case timestampNotIncreasing(previous: Int64, received: Int64)
    /// The stream was finished; nothing more is accepted.
    case finished

    public var description: String {
        switch self {
        case .invalidConfiguration(let reason): return "invalid HLS configuration: \(reason)"
        case .timestampNotIncreasing(let previous, let received):
            return "timestamp \(received) not after \(previous); sample dropped"
        case .finished: return "stream already finished"
        }
    }
}
