import Testing
import OnAirWebRTC
import OnAirWire
@testable import OnAirRelay

/// `media.bind`: one address or a list, "::" as dual stack, every entry an IP literal.
@Suite("media.bind")
struct BindAddressesTests: RelayConfigTesting {
    func sockets(_ config: RelayConfig) throws -> [String] {
        try config.media.bind.sockets().map(\.host)
    }

    @Test("one address, a list, and \"::\" alone: an IPv6 socket and an IPv4 one")
    func forms() throws {
        #expect(try sockets(load("media:\n  bind: 192.0.2.10\n")) == ["192.0.2.10"])
        #expect(try sockets(load("media:\n  bind: [\"2001:db8::10\", 192.0.2.10, 192.0.2.10]\n")) == ["2001:db8::10", "192.0.2.10"])
        #expect(try sockets(load("media:\n  bind: \"::\"\n")) == ["::", "0.0.0.0"])
        #expect(try sockets(load("media:\n  bind: [\"::\", 192.0.2.10]\n")) == ["::", "192.0.2.10"])
        #expect(try sockets(load("media:\n  bind: \"[::1]\"\n")) == ["::1"])
        #expect(try sockets(load(nil, environment: ["ONAIR_MEDIA_BIND": "::1, 127.0.0.1"])) == ["::1", "127.0.0.1"])
    }

    @Test("what is not an address is refused, naming it", arguments: [
        ("media:\n  bind: relay.example.org\n", "'relay.example.org' is not an IPv4 or IPv6 address"),
        ("media:\n  bind: []\n", "media.bind lists no address"),
        ("media:\n  bind: [127.0.0.1, 300.1.1.1]\n", "'300.1.1.1'"),
    ])
    func refused(yaml: String, expected: String) {
        let text = problem(yaml)
        #expect(text?.contains(expected) == true, "\(text ?? "loaded")")
    }

    @Test("candidates: the bind addresses; a wildcard stands for the machine's addresses of its family")
    func candidates() throws {
        var config = RelayConfig()
        config.media.bind = BindAddresses(["::1", "127.0.0.1"])
        #expect(config.candidateAddresses == ["::1", "127.0.0.1"])
        config.media.bind = "0.0.0.0"
        let machine = InterfaceAddresses.list(ipv6: false).map(\.host)
        #expect(config.candidateAddresses == (machine.isEmpty ? ["127.0.0.1"] : machine))
        #expect(!config.candidateAddresses.contains("0.0.0.0"))
        config.media.advertisedAddresses = ["203.0.113.7"]
        #expect(config.candidateAddresses == ["203.0.113.7"])
    }
}
