/// RFC 8866 §5.9 timing line `t=<start-time> <stop-time>` with its §5.10 repeat lines (`r=`),
/// kept as text because WebRTC always sends `t=0 0` and never repeats.
public struct SDPTiming: Sendable, Equatable {
    public var start: UInt64
    public var stop: UInt64
    /// The values of the `r=` lines that follow this `t=` line.
    public var repeats: [String]

    public init(start: UInt64 = 0, stop: UInt64 = 0, repeats: [String] = []) {
        self.start = start
        self.stop = stop
        self.repeats = repeats
    }

    init(parsing text: Substring) throws(SDPError) {
        let parts = SDPText.fields(text)
        guard parts.count == 2, let start = SDPText.decimal(parts[0], as: UInt64.self),
              let stop = SDPText.decimal(parts[1], as: UInt64.self) else {
            throw SDPError("t= must be two numbers: <start-time> <stop-time>")
        }
        self.init(start: start, stop: stop)
    }

    var lineValue: String { "\(start) \(stop)" }
}
