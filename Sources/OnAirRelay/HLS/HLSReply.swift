import NIOCore

/// What the LL-HLS loop answers to one LL-HLS request.
enum HLSReply: Sendable {
    /// Bytes to send now. A ByteBuffer so that one rendered playlist can go to a thousand
    /// released requests without a copy each.
    case content(ByteBuffer, contentType: String, cacheControl: String)
    /// The answer once the awaited part or playlist exists (a blocking playlist reload or a
    /// hinted part): computed on the LL-HLS loop the moment the request is released, so the
    /// HTTP side needs no second trip there. Fails when the wait times out.
    case wait(EventLoopFuture<HLSReply>)
    case notFound(String)
    case badRequest(String)
}

/// A held request outlived three target durations (RFC 8216bis §6.2.5.2: 503).
struct HLSWaitTimeout: Error {}
