import NIOCore
import NIOHTTP1

/// Answers a first request that the HTTP decoder refuses (an unknown method, a broken request
/// line, a head over the decoder's limits) with 400, or 431 for a head that is too large
/// (RFC 6585 §5), `Connection: close`, and closes the connection.
///
/// Needed behind hummingbird-websocket's upgrade pipeline (the chat): it turns NIO's own
/// error handling off because Hummingbird answers parse errors itself, but Hummingbird only
/// sees them once the upgrade handler has passed a first request on. Before that a parse
/// error reached nobody: no answer, and the connection stayed open (with its task waiting)
/// until the client left. Measured: 50 requests with the method `BREW` left 50 connections
/// open for good; a 1 MB header got no answer within 10 s (Tests/Interop/test_abuse.py).
///
/// Sits last in the pipeline and leaves it as soon as anything is read past it (the first
/// request was parsed, or the connection was upgraded): later parse errors are Hummingbird's.
final class FirstRequestParseErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any    // reads pass through untouched
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let status: HTTPResponseStatus = parseError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let head = HTTPResponseHead(version: .http1_1, status: status,
                                    headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
