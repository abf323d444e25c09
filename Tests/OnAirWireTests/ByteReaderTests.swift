import Testing
@testable import OnAirWire

@Suite struct ByteReaderTests {
    @Test func readsBigEndianIntegers() throws {
        var r = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09])
        #expect(try r.readUInt8() == 0x01)
        #expect(try r.readUInt16() == 0x0203)
        #expect(try r.readUInt32() == 0x0405_0607)
        #expect(r.remaining == 2)
        #expect(throws: WireError.truncated) { try r.readUInt32() }
        #expect(r.remaining == 2, "a failed read consumes nothing")
    }

    @Test func subReaderIsBounded() throws {
        var r = ByteReader([1, 2, 3, 4, 5])
        var sub = try r.subReader(2)
        #expect(try sub.readUInt16() == 0x0102)
        #expect(throws: WireError.truncated) { try sub.readUInt8() }
        #expect(try r.readUInt8() == 3)
        #expect(throws: WireError.truncated) { try r.subReader(3) }
    }

    @Test func writerRoundTrip() throws {
        var w = ByteWriter()
        w.write(UInt8(7)); w.write(UInt16(0xBEEF)); w.writeUInt24(0x123456); w.write(UInt32(0xDEADBEEF)); w.write(UInt64(42))
        var r = ByteReader(w.bytes)
        #expect(try r.readUInt8() == 7)
        #expect(try r.readUInt16() == 0xBEEF)
        #expect(try r.readUInt24() == 0x123456)
        #expect(try r.readUInt32() == 0xDEADBEEF)
        #expect(try r.readUInt64() == 42)
        #expect(r.isAtEnd)
    }

    /// The CRC-32 check value from the CRC catalogue: "123456789" -> 0xCBF43926.
    @Test func crc32CheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func hexRoundTrip() {
        #expect(Hex.decode("de:ad BE ef") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.encode([0xDE, 0xAD], separator: ":", uppercase: true) == "DE:AD")
    }
}

@Suite struct TransportAddressTests {
    @Test func parsesIPv4AndIPv6() {
        #expect(TransportAddress(host: "127.0.0.1", port: 5000)?.ip == .v4(0x7F00_0001))
        #expect(TransportAddress(host: "127.0.0.1", port: 5000)?.description == "127.0.0.1:5000")
        let v6 = TransportAddress(host: "::1", port: 9)
        #expect(v6?.ip == .v6(IPv6Address(Array(repeating: 0, count: 15) + [1])))
        #expect(TransportAddress(host: "fe80::1:2", port: 1)?.host == "fe80::1:2")
        #expect(TransportAddress(host: "256.0.0.1", port: 1) == nil)
        #expect(TransportAddress(host: "1::2::3", port: 1) == nil)
        #expect(TransportAddress(host: "example.com", port: 1) == nil)
    }
}
