import NIOCore

/// Delivery figures of every receiver on one event loop.
final class LoopStats: @unchecked Sendable {
    // Only touched on its event loop (all receivers of that loop record here, one thread);
    // the controller reads and resets it through `loop.submit`.
    var histogram = LatencyHistogram()
    var deliveries: UInt64 = 0
    var recording = false
    var closedEarly = 0
}

/// One chat client of the load generator: joins the room, then (receiver) records the
/// latency of every bench message from the time stamp the sender put in its text, or
/// (sender) sends `b:<seq>:<monotonic ns>` messages when told.
final class BenchClient: ChannelInboundHandler, @unchecked Sendable {
    // Every method runs on the channel's event loop; `joined` is completed there.
    typealias InboundIn = BenchWebSocket.Frame
    typealias OutboundOut = ByteBuffer

    let path: String
    let port: Int
    let name: String
    let stats: LoopStats
    let joined: EventLoopPromise<Void>
    private var hasJoined = false
    private var context: ChannelHandlerContext?

    init(path: String, port: Int, name: String, stats: LoopStats, joined: EventLoopPromise<Void>) {
        self.path = path
        self.port = port
        self.name = name
        self.stats = stats
        self.joined = joined
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: BenchWebSocket.upgradeRequest(path: path, port: port))), promise: nil)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !hasJoined { joined.fail(BenchError("\(name): closed before joining")) }
        if stats.recording { stats.closedEarly += 1 }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !hasJoined { joined.fail(error) }
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case 0xFF:
            send(#"{"type":"join","name":"\#(name)"}"#)
        case 0x9:
            context.writeAndFlush(wrapOutboundOut(BenchWebSocket.maskedFrame(opcode: 0xA, payload: Array(frame.payload.readableBytesView),
                                                                            allocator: context.channel.allocator)), promise: nil)
        case 0x1:
            if !hasJoined {
                if frame.payload.readableBytesView.starts(with: Array(#"{"#.utf8)), Self.contains(frame.payload, #""type":"joined""#) {
                    hasJoined = true
                    joined.succeed()
                }
                return
            }
            guard stats.recording, let sentAt = Self.benchStamp(frame.payload) else { return }
            let now = NIODeadline.now().uptimeNanoseconds
            stats.deliveries &+= 1
            stats.histogram.record(nanos: now > sentAt ? now - sentAt : 0)
        default:
            break
        }
    }

    /// Sends one text frame (on the event loop).
    func send(_ text: String) {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(BenchWebSocket.maskedFrame(opcode: 0x1, payload: Array(text.utf8),
                                                                        allocator: context.channel.allocator)), promise: nil)
    }

    /// Sends several text frames with one flush.
    func send(batch: [String]) {
        guard let context else { return }
        for text in batch {
            context.write(wrapOutboundOut(BenchWebSocket.maskedFrame(opcode: 0x1, payload: Array(text.utf8),
                                                                    allocator: context.channel.allocator)), promise: nil)
        }
        context.flush()
    }

    private static let marker = Array(#""text":"b:"#.utf8)

    /// The monotonic ns in `"text":"b:<seq>:<ns>"`, if this is a bench message.
    static func benchStamp(_ payload: ByteBuffer) -> UInt64? {
        payload.withUnsafeReadableBytes { bytes -> UInt64? in
            guard let start = find(marker, in: bytes) else { return nil }
            var i = start + marker.count
            while i < bytes.count, bytes[i] != UInt8(ascii: ":") { i += 1 }
            i += 1
            var value: UInt64 = 0
            var digits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                value = value * 10 + UInt64(bytes[i] - 0x30)
                i += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
    }

    static func contains(_ payload: ByteBuffer, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        return payload.withUnsafeReadableBytes { find(needle, in: $0) != nil }
    }

    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= needle.count, let first = needle.first else { return nil }
        var i = 0
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == first {
                var j = 1
                while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
