/// Why a ``TLSClientStream`` could not be set up (before any byte went out). Failures of the
/// handshake itself are not thrown: the stream reports them as ``TLSClientStream/State/failed(_:)``.
public struct TLSClientError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
