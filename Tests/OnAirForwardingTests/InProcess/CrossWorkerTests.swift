@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirRTP
import OnAirWire
import OnAirSDP
import Testing

/// One stream, viewers on two media workers: the publisher's worker writes what its room
/// admits into a ``StreamFeed`` once; the other worker fans out from it with its own SRTP,
/// rewriting, NACK answers and layer choice. Single-layer and simulcast publishers alike.
@Suite("Media workers: a stream's viewers on several workers, in-process")
struct CrossWorkerTests {
    static let publishers: [[String]] = [["f"], ["f", "h", "q"]]

    /// The frames both viewers got of the same layer, by (layer, frame): their payloads.
    static func common(_ a: TestViewer, _ b: TestViewer) -> [(a: [UInt8], b: [UInt8])] {
        var first: [[Int]: [UInt8]] = [:]
        for packet in a.frames { first[[packet.layer!, packet.frame!, Int(packet.payload.count)]] = packet.payload }
        return b.frames.compactMap { packet in first[[packet.layer!, packet.frame!, Int(packet.payload.count)]].map { ($0, packet.payload) } }
    }

    @Test("viewers on the publisher's worker and on another get the same stream, each with its own numbers", arguments: publishers)
    func identicalStreams(rids: [String]) throws {
        let harness = try PlaneHarness(workers: 2)
        _ = try LiveStream(harness, rids: rids)
        harness.run(for: .seconds(1))
        let home = try harness.watch(worker: 0)
        let away = try harness.watch(worker: 1)
        let other = try harness.watch(transportCC: true, worker: 1)
        try harness.runUntil(timeout: .seconds(2)) { [home, away, other].allSatisfy { !$0.frames.isEmpty } }
        harness.run(for: .seconds(2))

        #expect(harness.planes[1].sessions.count == 2 && harness.planes[0].sessions.count == 2)
        for viewer in [home, away, other] {
            #expect(viewer.frames.first?.keyframe == true)
            #expect(MediaPlaneInProcessTests.contiguous(viewer.videoHeaders.map(\.sequence)))
            #expect(viewer.audioPackets > 80, "\(viewer.audioPackets) audio packets")
            #expect(viewer.peer.session.srtpFailures == 0)
            let layer = try #require(viewer.frames.last?.layer)
            let numbers = viewer.frames.filter { $0.layer == layer }.compactMap(\.frame)
            #expect(numbers == Array(numbers.first!...numbers.last!), "every frame of its layer, in order")
        }
        let shared = Self.common(home, away)
        #expect(shared.count > 50 && shared.count == away.frames.count, "\(shared.count) of \(away.frames.count) packets in common")
        #expect(shared.allSatisfy { $0.a == $0.b })
        #expect(Set([home, away, other].compactMap { $0.video.first?.ssrc }).count == 3, "each viewer has its own SSRC")
        #expect(harness.planes[0].rooms["42"]?.feed?.dropped == 0)
    }

    @Test("a replica's layers start from the rates the publisher's worker measured, so its first viewer's choice matches", arguments: publishers)
    func replicaStartsFromMeasuredRates(rids: [String]) throws {
        let harness = try PlaneHarness(workers: 2)
        _ = try LiveStream(harness, rids: rids)
        harness.run(for: .seconds(3))
        let home = try harness.watch(worker: 0)
        let away = try harness.watch(worker: 1)
        // Well within the fifth of a second a replica would need to measure a layer itself.
        harness.run(for: .milliseconds(60))
        let origin = try #require(harness.planes[0].rooms["42"]?.stream)
        let replica = try #require(harness.planes[1].rooms["42"]?.stream)
        #expect(replica.videoLayers.count == origin.videoLayers.count)
        for (mine, theirs) in zip(replica.videoLayers.indices, origin.videoLayers.indices) {
            let candidate = replica.videoLayers[mine].candidate(index: mine, now: harness.now)
            let measured = origin.videoLayers[theirs].smoothedBitrate
            #expect(candidate.live, "layer \(mine) is a candidate at once")
            #expect(replica.videoLayers[mine].ssrc == origin.videoLayers[theirs].ssrc)
            #expect(measured > 0 && abs(Double(candidate.bitrate) - measured) <= measured * 0.01,
                    "layer \(mine): \(candidate.bitrate) bit/s on the replica, \(Int(measured)) measured")
        }
        try harness.runUntil(timeout: .seconds(2)) { !home.frames.isEmpty && !away.frames.isEmpty }
        #expect(away.frames.first?.layer == home.frames.first?.layer)
        // Its own samples take over: a few seconds on, the replica's figures are its own.
        harness.run(for: .seconds(4))
        for index in replica.videoLayers.indices {
            let ratio = replica.videoLayers[index].smoothedBitrate / origin.videoLayers[index].smoothedBitrate
            #expect((0.8...1.25).contains(ratio), "layer \(index): \(ratio)")
        }
    }

    @Test("a NACK is answered by the viewer's own worker, from its copy of the layer", arguments: publishers)
    func nackOnEachWorker(rids: [String]) throws {
        let harness = try PlaneHarness(workers: 2)
        _ = try LiveStream(harness, rids: rids)
        harness.run(for: .milliseconds(500))
        let viewers = [try harness.watch(worker: 0), try harness.watch(worker: 1)]
        harness.run(for: .seconds(1))
        var lost: [TransportAddress: UInt16] = [:]
        harness.drops = { to, datagram in
            guard let viewer = viewers.first(where: { $0.peer.address == to }), lost[to] == nil, datagram.count > 300,
                  datagram[1] & 0x7F == viewer.videoPayloadType else { return false }
            lost[to] = UInt16(datagram[2]) << 8 | UInt16(datagram[3])
            return true
        }
        harness.run(for: .milliseconds(100))
        for viewer in viewers {
            let sequence = try #require(lost[viewer.peer.address])
            #expect(!viewer.video.contains { $0.sequence == sequence })
            let ssrc = try #require(viewer.video.last?.ssrc)
            viewer.peer.sendRTCP([.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: ssrc, lostSequenceNumbers: [sequence]))])
        }
        harness.run(for: .milliseconds(40))
        for viewer in viewers {
            let sequence = try #require(lost[viewer.peer.address])
            let resent = try #require(viewer.video.first { $0.sequence == sequence })
            let neighbour = try #require(viewer.video.first { $0.sequence == sequence &+ 1 })
            #expect(resent.frame == neighbour.frame.map { $0 - 1 } || resent.frame == neighbour.frame)
            #expect(viewer.video.count { $0.sequence == sequence } == 1)
            #expect(harness.snapshot(of: viewer)?.retransmissions == 1)
        }
        #expect(harness.snapshot(of: viewers[1])?.worker == 1)
    }

    @Test("keyframe requests from viewers on both workers reach the publisher at most once per 500 ms", arguments: publishers)
    func keyframeRequestsCoalesced(rids: [String]) throws {
        let harness = try PlaneHarness(workers: 2)
        let stream = try LiveStream(harness, rids: rids, keyframeDelay: .milliseconds(150))
        harness.run(for: .seconds(1))
        let viewers = [try harness.watch(worker: 0), try harness.watch(worker: 1), try harness.watch(worker: 1)]
        try harness.runUntil(timeout: .seconds(2)) { viewers.allSatisfy { !$0.frames.isEmpty } }
        harness.run(for: .seconds(1))
        let layers = Set(viewers.compactMap { $0.frames.last?.layer })
        try #require(layers.count == 1, "the viewers share a layer: \(layers)")
        let layer = layers.first!
        let start = harness.now
        // Every viewer asks every 40 ms for 3 s: 225 PLIs.
        for _ in 0..<75 {
            for viewer in viewers {
                let ssrc = try #require(viewer.video.last?.ssrc)
                viewer.peer.sendRTCP([.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: ssrc))])
            }
            harness.run(for: .milliseconds(40))
        }
        let requests = stream.requests(layer: layer, since: start)
        #expect((4...7).contains(requests), "\(requests) keyframe requests in 3 s")
        #expect(stream.keyframeRequests.filter { $0.key != layer }.allSatisfy { $0.value.allSatisfy { $0 < start } })
    }

    @Test("the stream's end reaches the other worker's viewers at once; a replica left by its viewers stops reading", arguments: publishers)
    func endAndDetach(rids: [String]) throws {
        let harness = try PlaneHarness(workers: 2)
        _ = try LiveStream(harness, rids: rids)
        harness.run(for: .seconds(1))
        let leaving = try harness.watch(worker: 1)
        harness.run(for: .seconds(1))
        let feed = try #require(harness.planes[0].rooms["42"]?.feed)
        try harness.planes[1].deleteSession(id: leaving.sessionID, room: "42", kind: .viewer, now: harness.now)
        #expect(harness.planes[1].rooms["42"] == nil)
        // Nobody reads: the publisher's worker writes on past the ring's size without a drop.
        harness.run(for: .seconds(8))
        #expect(feed.dropped == 0)
        let staying = try harness.watch(worker: 1)
        try harness.runUntil(timeout: .seconds(1)) { !staying.frames.isEmpty }
        let publisher = try #require(harness.plane.rooms["42"]?.publisher)
        try harness.plane.deleteSession(id: publisher.id, room: "42", kind: .publisher, now: harness.now)
        harness.run(for: .milliseconds(40))
        #expect(harness.planes[1].sessions.isEmpty && harness.planes[1].rooms.isEmpty && harness.planes[1].replicas.isEmpty)
        #expect(feed.endReason == .publisherDeleted)
    }
}

extension CrossWorkerTests {
    @Test("a layer cap set on a viewer of another worker moves it at the next keyframe of that layer")
    func layerCapOnReplica() throws {
        let harness = try PlaneHarness(workers: 2)
        _ = try LiveStream(harness, rids: ["f", "h", "q"], keyframeDelay: .milliseconds(100))
        harness.run(for: .seconds(1))
        let viewer = try harness.watch(worker: 1)
        try harness.runUntil(timeout: .seconds(2)) { !viewer.frames.isEmpty }
        harness.run(for: .seconds(1))
        let before = try #require(viewer.frames.last?.layer)
        try harness.planes[1].setLayerCap(id: viewer.sessionID, room: "42", maximumHeight: 180, now: harness.now)
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.last?.layer == 2 }
        #expect(before != 2)
        #expect(harness.snapshot(of: viewer)?.layer == "q")
    }
}

extension CrossWorkerTests {
    @Test("a replica numbers layers as the publisher's worker does, whatever order their first records come in")
    func replicaLayerNumbering() throws {
        let negotiated = StreamFeedTests.negotiated
        let feed = StreamFeed(room: "42", publisherID: "p", negotiated: negotiated, wakeups: [nil, nil], capacity: 16)
        feed.attach(consumer: 1)
        // A receiver joining mid-stream: q (layer 2 there) first, then f (0), then h (1).
        for (layer, ssrc) in [(2, UInt32(30)), (0, 10), (1, 20), (2, 30)] {
            var packet = [UInt8](repeating: 0x41, count: 100)
            packet[0] = 0x80
            packet.withUnsafeBytes { raw in
                let view = RTPPacketView(payloadType: 96, marker: true, sequence: UInt16(layer), timestamp: 9, ssrc: ssrc,
                                         payloadRange: 12..<100)
                feed.packet(.video, raw: raw, view: view, layer: layer, rank: -1, keyframe: false, preamble: false, lead: 0,
                            retransmission: false, switched: false, now: .seconds(1))
            }
        }
        let room = Room(id: "42")
        let stream = StreamSource(negotiated: negotiated)
        room.stream = stream
        room.upstream = feed
        for index in feed.unread(consumer: 1, limit: 16) {
            room.replicateVideo(feed.record(at: index), sender: CapturingSink(), now: .seconds(1))
        }
        #expect(stream.videoLayers.map(\.ssrc) == [10, 20, 30])
        #expect(stream.videoLayers.map(\.packets) == [1, 1, 2])
    }
}

extension CrossWorkerTests {
    @Test("publisher loss repaired with RTX reaches viewers on both workers whole")
    func rtxRepairAcrossWorkers() throws {
        let harness = try PlaneHarness(workers: 2)
        let stream = try LiveStream(harness, rids: ["f"], rtx: true)
        #expect(stream.publisher.rtx != nil)
        harness.run(for: .seconds(1))
        let viewers = [try harness.watch(worker: 0), try harness.watch(worker: 1)]
        try harness.runUntil(timeout: .seconds(2)) { viewers.allSatisfy { !$0.frames.isEmpty } }
        // Every 20th video packet of the publisher is lost on its way in, its RTX is not.
        let ssrc = stream.publisher.layers[0].ssrc
        var seen = 0
        harness.dropsInbound = { _, datagram in
            guard let header = try? RTPHeader(parsing: datagram), header.ssrc == ssrc else { return false }
            seen += 1
            return seen % 20 == 0
        }
        harness.run(for: .seconds(3))
        #expect(stream.publisher.retransmissions >= 4)
        for viewer in viewers {
            let numbers = viewer.frames.compactMap(\.frame)
            #expect(Set(numbers).count == numbers.last! - numbers.first! + 1, "every frame, none missing")
            #expect(MediaPlaneInProcessTests.contiguous(viewer.videoHeaders.map(\.sequence).sorted { Int16(bitPattern: $0 &- $1) < 0 }))
        }
    }
}
