/// libopus refused a setting or a frame.
public struct OpusEncoderError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
