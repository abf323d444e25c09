import Foundation
import OnAirRTP
import OnAirSDP
import OnAirWire
import Testing
@testable import OnAirForwarding

/// ``StreamFeed``: one stream handed from the publisher's worker to several others in order,
/// written once and read in place; a slot is written again only after every reading worker
/// moved past it; a full ring drops and counts; detached workers hold nothing back.
@Suite("Stream feed")
struct StreamFeedTests {
    static let negotiated = NegotiatedSession(media: [], remoteUfrag: "u", remotePassword: "p",
                                              remoteFingerprint: DTLSFingerprint(algorithm: "sha-256", bytes: []),
                                              localSetup: .passive, remoteCandidates: [], bundleMids: [])

    static func feed(capacity: Int, wakeups: [(any TapWakeup)?]) -> StreamFeed {
        StreamFeed(room: "42", publisherID: "p", negotiated: negotiated, wakeups: wakeups, capacity: capacity)
    }

    /// An audio packet whose sequence number, timestamp and every payload octet carry `index`.
    static func publish(_ feed: StreamFeed, _ index: Int) {
        var packet = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 112)
        packet[0] = 0x80
        packet[1] = 111
        packet[2] = UInt8(truncatingIfNeeded: index >> 8)
        packet[3] = UInt8(truncatingIfNeeded: index)
        packet.withUnsafeBytes { raw in
            let view = RTPPacketView(payloadType: 111, marker: false, sequence: UInt16(truncatingIfNeeded: index),
                                     timestamp: UInt32(truncatingIfNeeded: index), ssrc: 7, payloadRange: 12..<112)
            feed.packet(.audio, raw: raw, view: view, layer: -1, rank: -1, keyframe: false, preamble: false, lead: 0,
                        retransmission: false, switched: false, now: .zero)
        }
    }

    @Test("each reading worker gets every record in order, read in place; the producer waits for the slowest")
    func order() {
        let feed = Self.feed(capacity: 8, wakeups: [nil, nil, nil])
        feed.attach(consumer: 1)
        feed.attach(consumer: 2)
        for index in 0..<8 { Self.publish(feed, index) }
        Self.publish(feed, 8)  // consumer 2 has not read: the ring is full
        #expect(feed.dropped == 1)
        let first = feed.unread(consumer: 1, limit: 100)
        #expect(first == 0..<8)
        #expect(first.map { feed.record(at: $0).timestamp } == Array(0..<8))
        #expect(feed.record(at: 3).packet.count == 112 && feed.record(at: 3).view.payloadRange == 12..<112)
        feed.release(consumer: 1, through: first.upperBound)
        Self.publish(feed, 9)
        #expect(feed.dropped == 2, "consumer 2 still holds every slot")
        feed.release(consumer: 2, through: 4)
        Self.publish(feed, 10)
        #expect(feed.dropped == 2)
        #expect(feed.unread(consumer: 1, limit: 100).map { feed.record(at: $0).timestamp } == [10])
        feed.detach(consumer: 2)
        for index in 11..<40 {
            Self.publish(feed, index)
            feed.release(consumer: 1, through: feed.unread(consumer: 1, limit: 100).upperBound)
        }
        #expect(feed.dropped == 2, "a detached worker holds nothing back")
    }

    @Test("a worker that attaches reads from the newest record on; the end is seen after the last record")
    func attachAndEnd() {
        let feed = Self.feed(capacity: 8, wakeups: [nil, nil])
        for index in 0..<5 { Self.publish(feed, index) }
        feed.attach(consumer: 1)
        Self.publish(feed, 5)
        feed.finish(.kicked)
        #expect(feed.unread(consumer: 1, limit: 100).map { feed.record(at: $0).timestamp } == [5])
        #expect(!feed.isDrained(consumer: 1))
        feed.release(consumer: 1, through: 6)
        #expect(feed.isDrained(consumer: 1) && feed.endReason == .kicked)
    }

    @Test("keyframe requests from several workers add up per layer until taken")
    func keyframeRequests() {
        let feed = Self.feed(capacity: 8, wakeups: [nil, nil, nil])
        #expect(feed.takeKeyframeRequests() == nil)
        feed.requestKeyframe(layer: 2, prompt: false)
        feed.requestKeyframe(layer: 0, prompt: true)
        feed.requestKeyframe(layer: 99, prompt: true)
        let requests = feed.takeKeyframeRequests()
        #expect(requests?.wanted == 0b101 && requests?.prompt == 0b001)
        #expect(feed.takeKeyframeRequests() == nil)
    }

    @Test("viewer counts of every worker add up; the peak stays")
    func viewers() {
        let feed = Self.feed(capacity: 8, wakeups: [nil, nil, nil])
        feed.setOriginViewers(3)
        feed.setViewers(4, consumer: 1)
        feed.setViewers(2, consumer: 2)
        #expect(feed.totalViewers == 9 && feed.peakViewers == 9)
        feed.detach(consumer: 1)
        #expect(feed.totalViewers == 5 && feed.peakViewers == 9)
    }

    /// Counts wakes, and lets a consumer thread sleep until one.
    final class Bell: TapWakeup, @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        func wake() { semaphore.signal() }
    }

    /// What one consumer thread saw.
    final class Seen: @unchecked Sendable {
        var timestamps: [UInt32] = []
        var torn = 0
        var timeouts = 0
    }

    @Test("a producer thread and two consumer threads: every record read whole, in order, nothing lost but what is counted")
    func threads() async throws {
        let bells = [Bell(), Bell(), Bell()]
        let feed = Self.feed(capacity: 64, wakeups: bells)
        let total = 200_000
        let seen = [Seen(), Seen()]
        var threads: [Thread] = []
        for consumer in 1...2 {
            feed.attach(consumer: consumer)
            let record = seen[consumer - 1]
            threads.append(Thread {
                while true {
                    let unread = feed.unread(consumer: consumer, limit: 16)
                    if unread.isEmpty {
                        if feed.endReason != nil && feed.isDrained(consumer: consumer) { break }
                        if feed.sleep(consumer: consumer), feed.endReason == nil,
                           bells[consumer].semaphore.wait(timeout: .now() + 2) == .timedOut {
                            record.timeouts += 1  // a missed wake: the timeout only keeps the test from hanging
                        }
                        continue
                    }
                    for index in unread {
                        let item = feed.record(at: index)
                        let tag = UInt8(truncatingIfNeeded: item.timestamp)
                        if item.packet.count != 112 || item.packet[12...].contains(where: { $0 != tag })
                            || item.view.sequence != UInt16(truncatingIfNeeded: item.timestamp) {
                            record.torn += 1
                        }
                        record.timestamps.append(item.timestamp)
                    }
                    feed.release(consumer: consumer, through: unread.upperBound)
                }
            })
        }
        for thread in threads { thread.start() }
        for index in 0..<total {
            Self.publish(feed, index)
            if index % 16 == 15 { feed.announce() }  // a read batch of 16 packets
        }
        feed.finish(.publisherDeleted)
        while !threads.allSatisfy(\.isFinished) { try await Task.sleep(for: .milliseconds(10)) }
        for record in seen {
            #expect(record.timeouts == 0 && record.torn == 0)
            #expect(zip(record.timestamps, record.timestamps.dropFirst()).allSatisfy { $0 < $1 })
            #expect(record.timestamps.count + Int(feed.dropped) == total)
        }
    }
}
