import OnAirSTUN
import Testing

@testable import OnAirBroadcast

@Suite("broadcast settings: URLs, bitrates, config file")
struct SettingsTests {
    @Test("a base URL gets /whip/<room>; a URL with a path is a full WHIP URL",
          arguments: [("http://127.0.0.1:8080", "http://127.0.0.1:8080/whip/42"),
                      ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/whip/42"),
                      ("https://live.example/whip/abc", "https://live.example/whip/abc"),
                      ("http://h:1/ingest", "http://h:1/ingest")])
    func whipURL(_ relay: String, _ expected: String) {
        #expect(BroadcastSettings.whipURL(relay: relay, room: "42") == expected)
    }

    @Test("bitrates as written", arguments: [("2500k", 2_500_000), ("2.5M", 2_500_000), ("64k", 64_000),
                                             ("800000", 800_000), ("0", nil), ("fast", nil), ("-5k", nil), ("1e12", nil)])
    func bitrates(_ text: String, _ expected: Int?) {
        #expect(BitrateText.parse(text) == expected)
    }

    @Test("config: known keys read, bitrates parsed, unknown keys refused with the list")
    func config() throws {
        let file = try BroadcastConfigFile.parse("""
            relay: http://10.0.0.1:8080
            video_bitrate: 1800k
            max_bitrate: 3M
            fps: 25
            audio: false
            """, source: "test.yaml")
        #expect(file.relay == "http://10.0.0.1:8080" && file.videoBitrate == 1_800_000 && file.maxBitrate == 3_000_000)
        #expect(file.fps == 25 && file.audio == false)
        let error = #expect(throws: BroadcastError.self) { try BroadcastConfigFile.parse("vidoe_bitrate: 1M", source: "x.yaml") }
        #expect(error?.description.contains("unknown key 'vidoe_bitrate'") == true)
        #expect(error?.code == .usage)
    }

    @Test("the shipped config/broadcast.yaml parses")
    func shippedConfig() throws {
        let path = #filePath.replacingOccurrences(of: "Tests/OnAirBroadcastTests/SettingsTests.swift", with: "config/broadcast.yaml")
        let file = try BroadcastConfigFile.load(path: path, required: true)
        #expect(file.preset == "veryfast" && file.gop == 60)
        #expect(file.simulcast == false && file.simulcastBitrates == [600_000, 150_000])
    }

    @Test("simulcast keys: a flag and 1 to 3 bitrates, with a message that says what to write")
    func simulcastKeys() throws {
        let file = try BroadcastConfigFile.parse("simulcast: true\nsimulcast_bitrates: [800k, 200000]", source: "s.yaml")
        #expect(file.simulcast == true && file.simulcastBitrates == [800_000, 200_000])
        for bad in ["simulcast: yes please", "simulcast_bitrates: 600k", "simulcast_bitrates: [fast]", "simulcast_bitrates: []"] {
            let error = #expect(throws: BroadcastError.self, "\(bad)") { try BroadcastConfigFile.parse(bad, source: "s.yaml") }
            #expect(error?.description.contains("s.yaml: 'simulcast") == true, "\(bad): \(String(describing: error))")
        }
    }

    @Test("ICE server keys: a turns: URI, its credential and the CA file for its certificate (RFC 8656 §3.1)")
    func iceServerKeys() throws {
        let file = try BroadcastConfigFile.parse("""
            ice_server: turns:turn.example:443
            ice_username: u
            ice_credential: p
            ice_ca_file: certs/ca.pem
            """, source: "i.yaml")
        #expect(file.iceServer == "turns:turn.example:443" && file.iceCAFile == "certs/ca.pem")
        let server = ICEServer(url: file.iceServer!, username: file.iceUsername, credential: file.iceCredential)
        #expect(server.turnURI == TURNServerURI(host: "turn.example", port: 443, transport: .tls))
    }
}
