import NIOCore

/// What the media loop answers to one LL-HLS request.
enum HLSReply: Sendable {
    /// Bytes to send now.
    case content([UInt8], contentType: String, cacheControl: String)
    /// Ask again once this future succeeds (a blocking playlist reload or a hinted part);
    /// it fails when the wait times out.
    case wait(EventLoopFuture<Void>)
    case notFound(String)
    case badRequest(String)
}

/// A held request outlived three target durations (RFC 8216bis §6.2.5.2: 503).
struct HLSWaitTimeout: Error {}
