/// Why an input cannot be used, worded for the person who chose it.
public struct MediaInputError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The file or device could not be opened (missing, permissions, not a media file).
        case cannotOpen
        /// It opened but holds nothing we can send (no decodable audio or video).
        case noMedia
        /// Decoding failed mid-stream.
        case decode
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
