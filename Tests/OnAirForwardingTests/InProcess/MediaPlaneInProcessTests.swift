@testable import OnAirForwarding
import OnAirPlaneHarness
import OnAirRTP
import OnAirWire
import Testing

/// The media plane in-process: real WHIP/WHEP signalling, ICE, DTLS and SRTP against real
/// client sessions, datagrams in memory, a manual clock. What a viewer receives is checked
/// packet by packet.
@Suite("Media plane, in-process")
struct MediaPlaneInProcessTests {
    /// Every sequence number follows the one before (RFC 3550 §5.1: a viewer counts a gap as loss).
    static func contiguous(_ sequences: [UInt16]) -> Bool {
        zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }
    }

    @Test("join: the viewer's first video is a keyframe asked for at once; audio before it; sequence numbers contiguous")
    func join() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let joined = harness.now
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(1)) { !viewer.frames.isEmpty }
        let firstFrame = harness.now - joined
        harness.run(for: .seconds(1))

        let frames = viewer.frames
        #expect(frames.first?.keyframe == true)
        let layer = try #require(frames.first?.layer)
        #expect(stream.requests(layer: layer, since: joined) >= 1)
        #expect(firstFrame <= .milliseconds(150), "first frame \(firstFrame) after the session was created")
        #expect(viewer.audioPackets > 0)
        #expect(Self.contiguous(viewer.videoHeaders.map(\.sequence)))
        // Every frame of its layer from the keyframe on, in order, none twice.
        let numbers = frames.filter { $0.layer == layer }.compactMap(\.frame)
        #expect(numbers == Array(numbers.first!...numbers.last!))
    }

    @Test("NACK: a packet lost on the way comes again from the cache with its sequence number, timestamp and payload")
    func nack() throws {
        let harness = try PlaneHarness()
        _ = try LiveStream(harness)
        harness.run(for: .milliseconds(500))
        let viewer = try harness.watch()
        harness.run(for: .seconds(1))
        // The next frame-sized video packet to the viewer is lost.
        var lost: UInt16?
        harness.drops = { to, datagram in
            guard lost == nil, to == viewer.peer.address, datagram.count > 300, datagram[1] & 0x7F == viewer.videoPayloadType else { return false }
            lost = UInt16(datagram[2]) << 8 | UInt16(datagram[3])
            return true
        }
        harness.run(for: .milliseconds(100))
        let sequence = try #require(lost)
        #expect(!viewer.video.contains { $0.sequence == sequence })
        let ssrc = try #require(viewer.video.last?.ssrc)
        viewer.peer.sendRTCP([.genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: ssrc, lostSequenceNumbers: [sequence]))])
        harness.run(for: .milliseconds(40))
        let resent = try #require(viewer.video.first { $0.sequence == sequence })
        let neighbour = try #require(viewer.video.first { $0.sequence == sequence &+ 1 })
        #expect(resent.layer == 0 && resent.frame == neighbour.frame.map { $0 - 1 })
        #expect(Int64(neighbour.timestamp &- resent.timestamp) > 0)
        #expect(viewer.video.count { $0.sequence == sequence } == 1)
        #expect(viewer.peer.session.srtpFailures == 0)
    }

    @Test("layer switch: at the new layer's keyframe, sequence numbers contiguous, timestamps carried over through the sender reports")
    func layerSwitch() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(2)) { viewer.frames.last?.layer == 0 }
        harness.run(for: .milliseconds(500))
        let capped = harness.now
        let before = viewer.frames.count
        try harness.plane.setLayerCap(id: viewer.sessionID, room: harness.room, maximumHeight: 180, now: capped)
        harness.run(for: .seconds(1))

        #expect(stream.requests(layer: 2, since: capped) >= 1)
        let after = Array(viewer.frames[before...])
        let firstLower = try #require(after.firstIndex { $0.layer == 2 })
        #expect(after[firstLower].keyframe)
        #expect(after[..<firstLower].allSatisfy { $0.layer == 0 })
        #expect(after[firstLower...].allSatisfy { $0.layer == 2 })
        #expect(Self.contiguous(viewer.videoHeaders.map(\.sequence)))
        // The viewer's clock runs on across the switch as the publisher's did.
        let last = after[firstLower - 1], first = after[firstLower]
        let publisherTicks = Int64((stream.publisher.frameTimes[first.frame!] - stream.publisher.frameTimes[last.frame!]).seconds * 90_000)
        let viewerTicks = Int64(first.timestamp &- last.timestamp)
        #expect(abs(viewerTicks - publisherTicks) <= 2, "viewer +\(viewerTicks) ticks, publisher +\(publisherTicks)")
        let timestamps = viewer.frames.map(\.timestamp)
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { Int32(bitPattern: $1 &- $0) >= 0 })
        #expect(harness.snapshot(of: viewer)?.layer == "q")
    }

    @Test("a viewer losing half its packets goes down a layer; the clean viewer keeps the top layer and every frame")
    func slowViewer() throws {
        let harness = try PlaneHarness()
        _ = try LiveStream(harness, keyframeDelay: .milliseconds(250))
        harness.run(for: .seconds(1))
        let clean = try harness.watch()
        let lossy = try harness.watch()
        try harness.runUntil(timeout: .seconds(2)) { clean.frames.last?.layer == 0 && lossy.frames.last?.layer == 0 }
        var reported = harness.now
        var framesBeforeDownswitch: Int?
        for _ in 0..<600 {
            harness.run(for: .milliseconds(10))
            if framesBeforeDownswitch == nil, let view = harness.snapshot(of: lossy), view.switchesDown > 0 {
                framesBeforeDownswitch = lossy.frames.count
            }
            // RFC 3550 §6.4.2: half of what was expected since the last report did not arrive.
            if harness.now - reported >= .milliseconds(200) {
                reported = harness.now
                lossy.reportVideo(fractionLost: 128)
            }
        }
        let lossyView = try #require(harness.snapshot(of: lossy))
        #expect(lossyView.layer != "f", "the lossy viewer is on \(lossyView.layer ?? "nothing") at \(lossyView.estimateKbps) kbit/s")
        // The old layer stops when the switch down is decided, not at the new layer's keyframe.
        let decided = try #require(framesBeforeDownswitch)
        #expect(lossy.frames[decided...].allSatisfy { $0.layer != 0 })
        #expect(harness.snapshot(of: clean)?.layer == "f")
        let numbers = clean.frames.compactMap(\.frame)
        #expect(clean.frames.allSatisfy { $0.layer == 0 })
        #expect(numbers == Array(numbers.first!...numbers.last!))
        #expect(Self.contiguous(clean.videoHeaders.map(\.sequence)))
    }

    /// Takes `viewer` (receiver reports only, RTX) down a layer with reports of half its video
    /// lost, then gives it a clean link on which only probe padding queues: each SR on its
    /// video is answered at once, or `queue` late if padding arrived within the last 100 ms.
    /// Returns when it went back up, else after 15 s, with when each padding burst ended and
    /// when each SR arrived.
    func probeUp(_ harness: PlaneHarness, _ viewer: TestViewer, queue: Duration) throws
        -> (paddingEnds: [MonoTime], reports: [MonoTime]) {
        var reported = harness.now
        // In its first seconds the loss must hold 1 s before it switches the viewer down.
        try harness.runUntil(timeout: .seconds(5)) {
            if harness.now - reported >= .milliseconds(200) {
                reported = harness.now
                viewer.reportVideo(fractionLost: 128)
            }
            return (harness.snapshot(of: viewer)?.switchesDown ?? 0) > 0
        }
        var seenRTP = viewer.peer.rtp.count, seenRTCP = viewer.peer.rtcp.count
        var lastPadding: MonoTime?
        var paddingEnds: [MonoTime] = [], reports: [MonoTime] = []
        var answers: [(due: MonoTime, lastSenderReport: UInt32)] = []
        let start = harness.now
        while harness.now - start < .seconds(15), harness.snapshot(of: viewer)?.switchesUp == 0 {
            harness.run(for: .milliseconds(5))
            let padded = viewer.peer.rtp[seenRTP...].contains { packet in
                (try? RTPHeader(parsing: packet)).map { $0.payloadType != viewer.videoPayloadType && $0.payloadRange.isEmpty } ?? false
            }
            seenRTP = viewer.peer.rtp.count
            if padded { lastPadding = harness.now }
            if let last = lastPadding, harness.now - last == .milliseconds(25) { paddingEnds.append(last) }
            let reportsNow = viewer.peer.rtcp[seenRTCP...].compactMap { packet -> SenderReport? in
                if case .senderReport(let report) = packet { report } else { nil }
            }
            seenRTCP = viewer.peer.rtcp.count
            if !reportsNow.isEmpty, let ssrc = viewer.video.last?.ssrc {
                for report in reportsNow where report.ssrc == ssrc {
                    reports.append(harness.now)
                    let queued = lastPadding.map { harness.now - $0 < .milliseconds(100) } ?? false
                    answers.append((harness.now + (queued ? queue : .zero), report.ntpTime.compact))
                }
            }
            for answer in answers where answer.due <= harness.now {
                viewer.reportVideo(lastSenderReport: answer.lastSenderReport)
            }
            answers.removeAll { $0.due <= harness.now }
        }
        return (paddingEnds, reports)
    }

    @Test("a probe to a viewer without transport-cc or REMB: an SR as its padding stops; answered late (a queue) the probe fails, at once it passes")
    func probeQueueMeasured() throws {
        let harness = try PlaneHarness()
        _ = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let queued = try harness.watch(rtx: true)
        try harness.runUntil(timeout: .seconds(2)) { queued.frames.last?.layer == 0 }
        let (paddingEnds, reports) = try probeUp(harness, queued, queue: .milliseconds(300))
        let view = try #require(harness.snapshot(of: queued))
        #expect(view.switchesUp == 0 && view.probesFailed >= 1 && view.probesSucceeded == 0,
                "up \(view.switchesUp), probes ok \(view.probesSucceeded) failed \(view.probesFailed)")
        // Each burst's report goes out as the padding stops.
        #expect(!paddingEnds.isEmpty)
        for end in paddingEnds {
            #expect(reports.contains { $0 >= end && $0 - end <= .milliseconds(40) }, "no SR within 40 ms of the padding's end")
        }

        let clear = try harness.watch(rtx: true)
        try harness.runUntil(timeout: .seconds(2)) { clear.frames.last?.layer == 0 }
        _ = try probeUp(harness, clear, queue: .zero)
        let clearView = try #require(harness.snapshot(of: clear))
        #expect(clearView.switchesUp == 1 && clearView.probesSucceeded >= 1, "\(clearView)")
    }

    @Test("upstream loss past repair: each viewer of the layer gets padding in place of every lost packet, its own back to back")
    func lossAnnounced() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness)
        harness.run(for: .seconds(1))
        let viewers = [try harness.watch(), try harness.watch()]
        try harness.runUntil(timeout: .seconds(2)) { viewers.allSatisfy { $0.frames.last?.layer == 0 } }
        // Three packets of f lost on the way in; the test publisher never answers a NACK.
        let ssrc = stream.publisher.layers[0].ssrc
        var lost: [UInt16] = []
        harness.dropsInbound = { _, datagram in
            guard lost.count < 3, let header = try? RTPHeader(parsing: datagram), header.ssrc == ssrc else { return false }
            lost.append(header.sequenceNumber)
            return true
        }
        harness.keepsSent = true
        harness.run(for: .seconds(3))
        #expect(lost.count == 3)
        for viewer in viewers {
            let ssrc = try #require(viewer.video.first?.ssrc)
            let headers = viewer.peer.rtp.compactMap { try? RTPHeader(parsing: $0) }.filter { $0.ssrc == ssrc }
            let padding = headers.filter { $0.payloadLength == 0 }
            #expect(padding.count == 3, "\(padding.count) announcements")
            // No hole is left in what the viewer got.
            #expect(Self.contiguous(headers.map(\.sequenceNumber).sorted { Int16(bitPattern: $0 &- $1) < 0 }))
            // Its announcements left in a row (one GSO send), not interleaved with another viewer's.
            // (SRTP leaves the header clear: the P bit and the SSRC.)
            let positions = harness.sent.indices.filter { index in
                let bytes = harness.sent[index].bytes
                return bytes.count < 60 && bytes[0] & 0x20 != 0 && bytes[8...11].reduce(0) { $0 << 8 | UInt32($1) } == ssrc
            }
            #expect(positions.count == 3 && positions.last! - positions.first! == 2, "\(positions)")
        }
    }

    @Test("keyframe with its SPS and PPS in a packet of their own: a joining viewer gets that packet first, numbered right before the IDR")
    func separatePreamble() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness, rids: ["f"])
        stream.publisher.separatePreamble = true
        harness.run(for: .seconds(1))
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(1)) { !viewer.frames.isEmpty }
        harness.run(for: .milliseconds(500))

        let video = viewer.video
        let first = try #require(video.first)
        #expect(first.startsWithSPS && !first.marker, "the viewer's first packet carries the SPS and PPS")
        #expect(video.dropFirst().first?.keyframe == true && video.dropFirst().first?.sequence == first.sequence &+ 1)
        #expect(video.dropFirst().first?.timestamp == first.timestamp)
        #expect(Self.contiguous(viewer.videoHeaders.map(\.sequence)))
        #expect(harness.snapshot(of: viewer)?.layer != nil)
    }

    @Test("SPS and PPS before pictures that are not IDR (intra refresh) start no viewer; the IDR does")
    func parameterSetsBeforeEveryPicture() throws {
        let harness = try PlaneHarness()
        let stream = try LiveStream(harness, rids: ["f"])
        stream.publisher.separatePreamble = true
        stream.publisher.parameterSetsBeforeEveryPicture = true
        harness.run(for: .seconds(1))
        let viewer = try harness.watch()
        try harness.runUntil(timeout: .seconds(1)) { !viewer.frames.isEmpty }
        harness.run(for: .milliseconds(500))

        let video = viewer.video
        #expect(video.first?.startsWithSPS == true)
        #expect(video.first { $0.frame != nil }?.keyframe == true, "the first picture is the IDR")
        #expect(video.dropFirst().first?.keyframe == true)
        #expect(video.count { $0.keyframe } == 1 && video.count { $0.startsWithSPS } > 10)
        #expect(Self.contiguous(viewer.videoHeaders.map(\.sequence)))
    }
}
