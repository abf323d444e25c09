/// libx264 refused a setting or a picture.
public struct H264EncoderError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
