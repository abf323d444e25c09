import OnAirWire
import Testing

@Suite("IPv6 address")
struct IPv6AddressTests {
    @Test("octets in, octets out, in network order; text as TransportAddress writes it")
    func octets() {
        let octets: [UInt8] = [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34]
        let address = IPv6Address(octets)
        #expect(address.octets == octets && address.count == 16 && address[15] == 0x34)
        #expect(address.high == 0x2001_0DB8_0000_0000 && address.low == 0x1234)
        let parsed = TransportAddress(host: "2001:db8::1234", port: 443)
        #expect(parsed?.ip == .v6(address))
        #expect(parsed?.description == "[2001:db8:0:0:0:0:0:1234]:443")
        octets.withUnsafeBytes { #expect(IPv6Address(networkBytes: $0) == address) }
    }
}
