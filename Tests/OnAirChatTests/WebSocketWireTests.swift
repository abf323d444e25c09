import NIOCore
@testable import OnAirChat
import Testing

/// Pre-built server frames against RFC 6455 §5.7 "Examples" (unmasked, server to client).
@Suite("WebSocket wire frames")
struct WebSocketWireTests {
    func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }

    @Test("§5.7: a single-frame unmasked text message \"Hello\"")
    func single() {
        let wire = WebSocketWire.textMessage(ByteBuffer(string: "Hello"), maxFrameBytes: 1024)
        #expect(bytes(wire) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test("§5.7: a fragmented unmasked text message \"Hel\" + \"lo\"")
    func fragmented() {
        let wire = WebSocketWire.textMessage(ByteBuffer(string: "Hello"), maxFrameBytes: 3)
        #expect(bytes(wire) == [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F])
    }

    @Test("§5.7: 256 bytes take a 16-bit length, 64 KiB a 64-bit length")
    func extendedLengths() {
        let medium = bytes(WebSocketWire.textMessage(ByteBuffer(repeating: 0x61, count: 256), maxFrameBytes: 1 << 20))
        #expect(Array(medium.prefix(4)) == [0x81, 0x7E, 0x01, 0x00])
        #expect(medium.count == 4 + 256)
        let large = bytes(WebSocketWire.textMessage(ByteBuffer(repeating: 0x61, count: 65536), maxFrameBytes: 1 << 20))
        #expect(Array(large.prefix(10)) == [0x81, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(large.count == 10 + 65536)
    }

    @Test("a long message splits into full frames and a final continuation, payload intact")
    func longMessage() {
        let payload = (0..<40_000).map { UInt8(truncatingIfNeeded: $0) }
        var wire = WebSocketWire.textMessage(ByteBuffer(bytes: payload), maxFrameBytes: 16_384)
        var opcodes: [UInt8] = []
        var joined: [UInt8] = []
        while wire.readableBytes > 0 {
            let b0 = wire.readInteger(as: UInt8.self)!
            var length = Int(wire.readInteger(as: UInt8.self)!)
            if length == 126 { length = Int(wire.readInteger(as: UInt16.self)!) }
            opcodes.append(b0)
            joined += wire.readBytes(length: length)!
        }
        #expect(opcodes == [0x01, 0x00, 0x80])
        #expect(joined == payload)
    }
}
