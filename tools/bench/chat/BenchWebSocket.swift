import NIOCore

/// A deliberately small WebSocket client for the load generator (RFC 6455): the upgrade
/// request, unmasked server frames in, masked client frames out. Enough for thousands of
/// sockets on one event loop without a task or actor per socket.
enum BenchWebSocket {
    struct Frame {
        /// RFC 6455 §5.2 opcode: 0x1 text, 0x8 close, 0x9 ping, 0xA pong; 0xFF = handshake done (ours).
        var opcode: UInt8
        var payload: ByteBuffer
    }

    static func upgradeRequest(path: String, port: Int) -> String {
        // RFC 6455 §4.1; the key is fixed (the bench does not check Sec-WebSocket-Accept).
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// RFC 6455 §5.3: a client masks every frame.
    static func maskedFrame(opcode: UInt8, payload: [UInt8], allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: payload.count + 14)
        buffer.writeInteger(0x80 | opcode)
        if payload.count < 126 {
            buffer.writeInteger(UInt8(0x80 | payload.count))
        } else if payload.count <= 0xFFFF {
            buffer.writeInteger(UInt8(0x80 | 126))
            buffer.writeInteger(UInt16(payload.count))
        } else {
            buffer.writeInteger(UInt8(0x80 | 127))
            buffer.writeInteger(UInt64(payload.count))
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        buffer.writeBytes(mask)
        for (i, byte) in payload.enumerated() { buffer.writeInteger(byte ^ mask[i & 3]) }
        return buffer
    }

    /// The 101 response, then frames.
    struct Decoder: ByteToMessageDecoder {
        typealias InboundOut = Frame
        private var upgraded = false

        mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
            if !upgraded {
                guard let end = Self.headerEnd(buffer) else { return .needMoreData }
                let head = buffer.readString(length: end) ?? ""
                guard head.hasPrefix("HTTP/1.1 101") else { throw BenchError("upgrade refused: \(head.prefix(80))") }
                upgraded = true
                context.fireChannelRead(Self.wrapInboundOut(Frame(opcode: 0xFF, payload: ByteBuffer())))
                return .continue
            }
            let start = buffer.readerIndex
            guard buffer.readableBytes >= 2, let b0 = buffer.getInteger(at: start, as: UInt8.self),
                  let b1 = buffer.getInteger(at: start + 1, as: UInt8.self) else { return .needMoreData }
            var header = 2
            var length = Int(b1 & 0x7F)
            if length == 126 {
                guard let n = buffer.getInteger(at: start + 2, as: UInt16.self) else { return .needMoreData }
                length = Int(n)
                header = 4
            } else if length == 127 {
                guard let n = buffer.getInteger(at: start + 2, as: UInt64.self) else { return .needMoreData }
                length = Int(n)
                header = 10
            }
            if b1 & 0x80 != 0 { header += 4 } // servers do not mask; skip a key if one does
            guard buffer.readableBytes >= header + length else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: header)
            let payload = buffer.readSlice(length: length)!
            context.fireChannelRead(Self.wrapInboundOut(Frame(opcode: b0 & 0x0F, payload: payload)))
            return .continue
        }

        private static func headerEnd(_ buffer: ByteBuffer) -> Int? {
            let view = buffer.readableBytesView
            guard view.count >= 4 else { return nil }
            var i = view.startIndex
            while i + 3 < view.endIndex {
                if view[i] == 13 && view[i + 1] == 10 && view[i + 2] == 13 && view[i + 3] == 10 { return i + 4 - view.startIndex }
                i += 1
            }
            return nil
        }
    }
}
