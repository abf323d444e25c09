#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import HTTPTypes
import Hummingbird
import NIOCore
import OnAirHTTP
import NIOHTTPTypes

/// Answers LL-HLS GETs and HEADs (`/hls/...`) on the connection's event loop, in the HTTP
/// pipeline ahead of the router. A part that releases a thousand blocking playlist requests then
/// costs a thousand writes of one shared rendered playlist, not a thousand async handler
/// resumptions, each with its own hops between the LL-HLS loop, a task and the channel's
/// loop (measured: ~30 µs of one core per released request through the router, which is
/// 30 ms for the last of 1,000; tools/bench/hls/blocking_fanout.py).
///
/// The only server of LL-HLS: everything else goes to the router unchanged. Responses stay in
/// request order (HTTP/1.1 pipelining, RFC 9112 §9.3.2): an HLS request that arrives while the
/// router still owes this connection a response is answered once that response has ended, and
/// requests arriving while one is held here wait until it is answered, then go through the
/// same decision.
///
/// Answers go through the HTTP/1 encoder, as the router's do: it frames each answer by the
/// method of the request it answers, in request order (no content for a HEAD, RFC 9110
/// §9.3.2), so one written past it would leave it a request behind and every later answer on
/// the connection framed by its predecessor's method (a GET after a HEAD sent without its body).
final class HLSFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let hls: HLSService
    private let cors: CORSPolicy
    /// Requests handed to the router whose response has not ended yet.
    private var routerOutstanding = 0
    /// A request taken here: its head until its end arrives, then while it is answered.
    private var current: (head: HTTPRequest, complete: Bool)?
    /// `current` is complete and waits for the router's outstanding responses to end.
    private var waitsForRouter = false
    /// Parts that arrived while `current` is being answered (pipelined requests).
    private var queued: [HTTPRequestPart] = []
    private var date: (second: Int, text: String) = (0, "")
    /// Inside channelRead..channelReadComplete; reads passed on outside it (queued requests
    /// replayed after an answer) need a channelReadComplete of their own, or the router's
    /// async channel never sees them.
    private var inRead = false
    private var readCompletePending = false

    init(hls: HLSService, cors: CORSPolicy) {
        self.hls = hls
        self.cors = cors
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inRead = true
        let part = unwrapInboundIn(data)
        if current != nil, current?.complete == true || !queued.isEmpty {
            queued.append(part)
            return
        }
        route(part, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inRead = false
        readCompletePending = false
        context.fireChannelReadComplete()
    }

    /// Passes a request part on to the router.
    private func forward(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        if !inRead { readCompletePending = true }
        context.fireChannelRead(wrapInboundOut(part))
    }

    private func route(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            if current == nil, head.method == .get || head.method == .head, head.path?.hasPrefix("/hls/") == true {
                current = (head, false)
            } else {
                routerOutstanding += 1
                forward(part, context: context)
            }
        case .body:
            if current == nil { forward(part, context: context) }   // a GET's or HEAD's body is ignored
        case .end:
            guard let request = current else {
                forward(part, context: context)
                return
            }
            current = (request.head, true)
            if routerOutstanding > 0 {
                waitsForRouter = true
            } else {
                answer(request.head, context: context)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        routerOutstanding = max(0, routerOutstanding - 1)
        context.write(data, promise: promise)
        if routerOutstanding == 0, waitsForRouter, let request = current {
            waitsForRouter = false
            answer(request.head, context: context)
        }
    }

    // MARK: answering

    private func answer(_ head: HTTPRequest, context: ChannelHandlerContext) {
        let target = head.path ?? ""
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let route: HLSRoute
        do {
            guard let parsed = try HLSRoute.parse(path: path[0], query: path.count > 1 ? path[1] : nil) else {
                // Not a resource shape of ours: the router answers (404) as for any path.
                current = nil
                routerOutstanding += 1
                forward(.head(head), context: context)
                forward(.end(nil), context: context)
                // Requests pipelined behind this one go on too (they waited here for good
                // before: GET /a, GET /hls/x, GET /b in one write left /b unanswered).
                replayQueued(context: context)
                return
            }
            route = parsed
        } catch {
            send(.error(.badRequest, error.reason), to: head, context: context)
            return
        }
        let hls = hls
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let channelLoop = context.eventLoop
        hls.loop.execute {
            let reply = route.reply(from: hls)
            channelLoop.execute { bound.value.0.deliver(reply, to: head, context: bound.value.1) }
        }
    }

    /// Sends `reply`, or waits for it on a held request.
    private func deliver(_ reply: HLSReply, to head: HTTPRequest, context: ChannelHandlerContext) {
        guard case .wait(let future) = reply else {
            respond(reply, to: head, context: context)
            return
        }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        future.hop(to: context.eventLoop).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let next): handler.deliver(next, to: head, context: context)
            case .failure: handler.send(.error(.serviceUnavailable, "the requested part did not appear within three target durations"),
                                        to: head, context: context)
            }
        }
    }

    private enum Outcome {
        case content(ByteBuffer, contentType: String, cacheControl: String)
        case error(HTTPResponse.Status, String)
    }

    private func respond(_ reply: HLSReply, to head: HTTPRequest, context: ChannelHandlerContext) {
        switch reply {
        case .content(let bytes, let type, let cache): send(.content(bytes, contentType: type, cacheControl: cache), to: head, context: context)
        case .notFound(let reason): send(.error(.notFound, reason), to: head, context: context)
        case .badRequest(let reason): send(.error(.badRequest, reason), to: head, context: context)
        case .wait: send(.error(.serviceUnavailable, "no answer after repeated waits"), to: head, context: context)
        }
    }

    /// The response (plain-text errors, as the router's; a HEAD's without content), then the
    /// next queued request. The body is the playlist buffer shared by every answer.
    private func send(_ outcome: Outcome, to head: HTTPRequest, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let status: HTTPResponse.Status
        let body: ByteBuffer
        var fields: HTTPFields
        switch outcome {
        case .content(let bytes, let type, let cache):
            (status, body) = (.ok, bytes)
            fields = [.contentType: type, .cacheControl: cache]
        case .error(let code, let reason):
            (status, body) = (code, ByteBuffer(string: reason + "\n"))
            fields = [.contentType: "text/plain; charset=utf-8"]
        }
        fields[.contentLength] = String(body.readableBytes)
        fields.append(contentsOf: cors.responseHeaders(origin: head.headerFields[.origin]))
        let close = head.headerFields[.connection]?.lowercased().contains("close") == true
        if close { fields[.connection] = "close" }
        fields[.date] = httpDate()
        fields[.server] = "OnAir"
        // Written from here, toward the socket: past this handler's own write (router answers only).
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        if head.method != .head { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        current = nil
        if close {
            context.close(promise: nil)
            return
        }
        replayQueued(context: context)
    }

    /// Pipelined requests that waited for the one just answered or handed to the router.
    private func replayQueued(context: ChannelHandlerContext) {
        while current?.complete != true, !queued.isEmpty {
            route(queued.removeFirst(), context: context)
        }
        if readCompletePending {
            readCompletePending = false
            context.fireChannelReadComplete()
        }
    }

    /// RFC 9110 §5.6.7 IMF-fixdate, computed once a second per connection.
    private func httpDate() -> String {
        var now = time(nil)
        if Int(now) == date.second { return date.text }
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        date = (Int(now), text)
        return text
    }
}
