import OnAirRTP
import OnAirWire
import Testing
@testable import OnAirForwarding

/// The RFC 8285 one-byte block the relay writes for a viewer, read back by our own walker.
@Suite("ViewerHeaderExtensions")
struct ViewerHeaderExtensionsTests {
    @Test("abs-send-time and the transport-wide sequence number in one block, padded to 32 bits")
    func bothElements() throws {
        var extensions = ViewerHeaderExtensions(absoluteSendTimeID: 3, transportSequenceID: 5, firstTransportSequence: 65_535)
        #expect(extensions.length == 12)
        var packet = [UInt8](repeating: 0xEE, count: 12 + 12 + 4)
        packet[0] = 0x80
        let now = MonoTime(nanoseconds: 65_250_000_000)  // 65.25 s: abs-send-time wraps at 64 s
        let used = packet.withUnsafeMutableBytes { extensions.write(into: $0, now: now) }
        #expect(used == 65_535 && extensions.nextTransportSequence == 0)
        #expect(packet[0] == 0x90)
        let header = try RTPHeader(parsing: packet)
        let absolute = try packet.withUnsafeBytes { try RTPHeaderExtensionWalker.find(id: 3, in: $0, header: header) }
        let sequence = try packet.withUnsafeBytes { try RTPHeaderExtensionWalker.find(id: 5, in: $0, header: header) }
        let a = try #require(absolute)
        let s = try #require(sequence)
        #expect(a.count == 3 && s.count == 2)
        let time = UInt32(packet[a.lowerBound]) << 16 | UInt32(packet[a.lowerBound + 1]) << 8 | UInt32(packet[a.lowerBound + 2])
        #expect(time == 1 << 18 + 1 << 16)  // 1.25 s in 6.18 fixed point
        #expect(packet[s.lowerBound] == 0xFF && packet[s.lowerBound + 1] == 0xFF)
        #expect(packet[24] == 0xEE)  // nothing written past the block
    }

    @Test("one element, or none; ids outside 1...14 are left out")
    func lengths() {
        #expect(ViewerHeaderExtensions(absoluteSendTimeID: 2, transportSequenceID: nil).length == 8)
        #expect(ViewerHeaderExtensions(absoluteSendTimeID: nil, transportSequenceID: 4).length == 8)
        #expect(ViewerHeaderExtensions(absoluteSendTimeID: nil, transportSequenceID: nil).length == 0)
        #expect(ViewerHeaderExtensions(absoluteSendTimeID: 15, transportSequenceID: 0).length == 0)
        var none = ViewerHeaderExtensions(absoluteSendTimeID: nil, transportSequenceID: nil)
        var packet = [UInt8](repeating: 0, count: 12)
        packet[0] = 0x80
        #expect(packet.withUnsafeMutableBytes { none.write(into: $0, now: .zero) } == nil)
        #expect(packet[0] == 0x80)
    }
}
