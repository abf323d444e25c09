import HTTPTypes
import HummingbirdTesting
import OnAirSDP
import Testing
@testable import OnAirRelay

/// `media.workers`: rooms placed on workers, each worker its own UDP port, and everything
/// that asks about rooms finding them wherever they are.
@Suite("Media workers")
struct MediaWorkersTests {
    /// The UDP ports of an answer's candidates.
    static func ports(_ answer: String) throws -> Set<Int> {
        Set(try SessionDescription.parse(answer).media.flatMap(\.candidates).filter(\.isUDP).map { Int($0.port) })
    }

    /// The answer's candidates' ports, UDP and TCP: the session's worker's pair.
    static func portPair(_ answer: String) throws -> [Int] {
        let candidates = try SessionDescription.parse(answer).media.flatMap(\.candidates)
        let udp = candidates.first { $0.isUDP }, tcp = candidates.first { !$0.isUDP }
        guard let udp, let tcp else { throw SDPError("no UDP or no TCP candidate") }
        return [Int(udp.port), Int(tcp.port)]
    }

    @Test("two workers: two ports; a new room goes to the idler worker; viewers found for PATCH and DELETE")
    func placement() async throws {
        try await withRelay({ $0.media.workers = 2 }) { relay, client in
            let ports = relay.workers.udpPorts
            #expect(ports.count == 2 && ports[0] != ports[1])
            let first = try Self.ports(try await client.publish(room: "1").answer)
            let second = try Self.ports(try await client.publish(room: "2").answer)
            #expect(first.count == 1 && second.count == 1 && first != second, "\(first) \(second)")
            #expect(first.union(second) == Set(ports))
            // Viewers spread over the workers, whichever worker their room's publisher is on.
            var viewers: [CreatedSession] = []
            var seen: Set<Int> = []
            for room in ["2", "2", "1", "1", "2", "1"] {
                let viewer = try await client.watch(room: room)
                viewers.append(viewer)
                seen.formUnion(try Self.ports(viewer.answer))
                // Its ICE-TCP candidate is its worker's too.
                let pair = try Self.portPair(viewer.answer)
                let worker = try #require(relay.workers.udpPorts.firstIndex(of: pair[0]))
                #expect(relay.workers.tcpPorts[worker] == pair[1])
            }
            #expect(seen == Set(ports))
            // A second publisher of a room is refused by the room's own worker, as with one.
            let again = try await client.post("/whip/2", TestOffers.publisher())
            #expect(again.status == .conflict)
            // Every worker's streams are listed once, and each room is found.
            let listed = try await client.get("/api/streams")
            #expect(listed.status == .ok)
            #expect(listed.text.components(separatedBy: "\"room\":").count == 3, "\(listed.text)")
            #expect(try await client.get("/api/streams/1").status == .ok)
            #expect(try await client.get("/api/streams/2").status == .ok)
            let metrics = String(buffer: try await client.get("/metrics").body)
            #expect(metrics.contains("onair_worker_sessions{worker=\"0\"} 4"), "\(metrics)")
            #expect(metrics.contains("onair_worker_sessions{worker=\"1\"} 4"), "\(metrics)")
            #expect(metrics.contains("onair_sessions 8"))
            // Sessions are found on whichever worker has them.
            for viewer in viewers {
                let patched = try await client.patch(viewer.location, "a=candidate:1 1 udp 1 192.0.2.1 9 typ host\r\n",
                                                     ifMatch: viewer.etag)
                #expect(patched.status == .noContent, "\(patched.status) \(patched.text)")
                #expect(try await client.delete(viewer.location).status == .ok)
            }
            #expect(String(buffer: try await client.get("/metrics").body).contains("onair_sessions 2"))
        }
    }

    @Test("a room's worker is forgotten when the room closes, and when its publisher's offer is refused")
    func placementForgotten() async throws {
        try await withRelay({ $0.media.workers = 2 }) { relay, client in
            let publisher = try await client.publish(room: "3")
            let viewer = try await client.watch(room: "3")
            #expect(relay.workers.placement.worker(of: "3") != nil)
            #expect(try await client.delete(publisher.location).status == .ok)
            // The stream's end ends its viewers: the room closes on its worker.
            for _ in 0..<100 where relay.workers.placement.worker(of: "3") != nil { try await Task.sleep(for: .milliseconds(20)) }
            #expect(relay.workers.placement.worker(of: "3") == nil)
            _ = viewer
            let refused = try await client.post("/whip/4", "v=0\r\nnot an offer\r\n")
            #expect(refused.status == .badRequest, "\(refused.status) \(refused.text)")
            #expect(relay.workers.placement.worker(of: "4") == nil)
            #expect(relay.workers.placement.count == 0)
            // A room published again is placed again.
            _ = try await client.publish(room: "3")
            #expect(relay.workers.placement.worker(of: "3") != nil)
        }
    }

    @Test("one worker keeps everything on one port")
    func single() async throws {
        try await withRelay({ $0.media.workers = 1 }) { relay, client in
            #expect(relay.workers.udpPorts.count == 1)
            let first = try Self.ports(try await client.publish(room: "1").answer)
            let second = try Self.ports(try await client.publish(room: "2").answer)
            #expect(first == second && first == [relay.udpPort])
        }
    }

    @Test("media.workers is checked: 1 to 256, and the ports must fit")
    func configuration() throws {
        var config = RelayConfig()
        config.media.workers = 0
        #expect(throws: (any Error).self) { try RelayConfigLoader.validate(config) }
        config.media.workers = 257
        #expect(throws: (any Error).self) { try RelayConfigLoader.validate(config) }
        config.media.workers = 4
        config.media.udpPort = 65_534
        #expect(throws: (any Error).self) { try RelayConfigLoader.validate(config) }
        config.media.udpPort = 65_532
        try RelayConfigLoader.validate(config)
        config.media.workers = nil
        #expect(config.media.workerCount >= 1)
    }
}
