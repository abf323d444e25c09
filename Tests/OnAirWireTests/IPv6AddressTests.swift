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
        #expect(parsed?.description == "[2001:db8::1234]:443")
        octets.withUnsafeBytes { #expect(IPv6Address(networkBytes: $0) == address) }
    }
}

@Suite("IPv6 text and kinds")
struct IPv6TextTests {
    @Test("written as RFC 5952 §4.2 says: the longest zero run (the first of equals) as ::, never one group")
    func compressed() {
        let cases = ["2001:2::1": "2001:2::1", "::": "::", "::1": "::1", "1::": "1::",
                     "2001:db8:0:0:1:0:0:1": "2001:db8::1:0:0:1", "2001:db8:0:1:0:0:0:1": "2001:db8:0:1::1",
                     "1:0:2:3:4:5:6:7": "1:0:2:3:4:5:6:7", "fe80::a:b": "fe80::a:b"]
        for (input, written) in cases {
            let address = TransportAddress(host: input, port: 1)
            #expect(address?.host == written, "\(input)")
            #expect(address.flatMap { TransportAddress(host: $0.host, port: 1) } == address, "\(input) round trip")
        }
    }

    @Test("wildcard, loopback and link-local, per family")
    func kinds() throws {
        func address(_ text: String) throws -> TransportAddress { try #require(TransportAddress(host: text, port: 0)) }
        #expect(try address("0.0.0.0").isWildcard && address("::").isWildcard && !address("::1").isWildcard)
        #expect(try address("127.0.0.2").isLoopback && address("::1").isLoopback && !address("::2").isLoopback)
        #expect(try address("fe80::1").isLinkLocal && address("febf::1").isLinkLocal && !address("fec0::1").isLinkLocal)
        #expect(try !address("169.254.1.1").isLinkLocal && !address("2001:2::1").isLinkLocal)
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"] { #expect(TransportAddress.isLoopback(host: host), "\(host)") }
        for host in ["0.0.0.0", "::", "198.18.0.1", "relay.example.org", "[2001:2::1]"] { #expect(!TransportAddress.isLoopback(host: host), "\(host)") }
    }

    @Test("the base tells two local sockets' peers apart and is not written")
    func base() {
        let a = TransportAddress(ip: .v4(0x0A00_0001), port: 5)
        var b = a
        b.base = 1
        #expect(a != b && a.description == b.description && Set([a, b]).count == 2)
    }
}
