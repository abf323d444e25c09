/// A failure that ends `broadcast` with a message that says what to fix and an exit code a
/// script can branch on.
public struct BroadcastError: Error, CustomStringConvertible, Sendable {
    /// Exit codes, documented in the README.
    public enum Code: Int32, Sendable {
        case failure = 1
        /// Bad option, unreadable input, no camera.
        case usage = 2
        case relayUnreachable = 3
        case unauthorized = 4
        case roomBusy = 5
        /// Any other HTTP error from the WHIP endpoint.
        case rejected = 6
        /// Media path lost and every reconnect failed.
        case connectionLost = 7
    }

    public let code: Code
    public let description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
