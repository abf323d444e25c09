import Foundation
import OnAirRTP
import OnAirWire
import Testing
@testable import OnAirForwarding

/// ``MediaTapRing``: a stream's media handed from the forwarding loop to another thread in
/// order, without a lock; a full ring drops and counts; the flags are never lost.
@Suite("Media tap ring")
struct MediaTapRingTests {
    /// Keeps what it is given, as text (one line per record).
    final class Recorder: MediaTapConsumer, @unchecked Sendable {
        var keyframeWanted = false
        var records: [String] = []
        var sequences: [UInt16] = []
        var timestamps: [UInt32] = []

        func receiveVideo(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                          payload: UnsafeRawBufferPointer, now: MonoTime) {
            records.append("video \(layer) \(rid ?? "-") \(isPrimary) \(sequence) \(timestamp) \(marker) \(Array(payload)) \(now.nanoseconds)")
            sequences.append(sequence)
        }

        func receiveAudio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
            records.append("audio \(sequence) \(timestamp) \(marker) \(Array(payload)) \(now.nanoseconds)")
            sequences.append(sequence)
            timestamps.append(timestamp)
        }

        func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32) {
            records.append("sr \(layer.map(String.init) ?? "audio") \(rid ?? "-") \(isPrimary) \(ntp.rawValue) \(rtpTimestamp)")
        }
    }

    /// Counts wakes, and lets a consumer thread sleep until one.
    final class Bell: TapWakeup, @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var rings = 0
        func wake() {
            lock.withLock { rings += 1 }
            semaphore.signal()
        }
    }

    @Test("records arrive in order with their numbers, payloads, rids and arrival times")
    func order() {
        let ring = MediaTapRing(capacity: 8, wakeup: nil)
        ([1, 2, 3] as [UInt8]).withUnsafeBytes {
            ring.video(layer: 2, rid: "f", isPrimary: true, sequence: 65_535, timestamp: 90_000, marker: true, payload: $0, now: .seconds(1))
        }
        ([9] as [UInt8]).withUnsafeBytes { ring.audio(sequence: 7, timestamp: 960, marker: false, payload: $0, now: .seconds(2)) }
        ring.senderReport(layer: nil, rid: nil, isPrimary: false, ntp: NTPTime(rawValue: 0xE000_0000_8000_0000), rtpTimestamp: 5)
        ring.senderReport(layer: 0, rid: "h", isPrimary: false, ntp: NTPTime(rawValue: 42), rtpTimestamp: 6)
        let recorder = Recorder()
        #expect(ring.drain(into: recorder) == false)
        #expect(recorder.records == [
            "video 2 f true 65535 90000 true [1, 2, 3] 1000000000",
            "audio 7 960 false [9] 2000000000",
            "sr audio - false \(UInt64(0xE000_0000_8000_0000)) 5",
            "sr 0 h false 42 6",
        ])
        #expect(ring.dropped == 0)
    }

    @Test("a full ring drops what does not fit and counts it; drained, it takes packets again")
    func full() {
        let ring = MediaTapRing(capacity: 4, wakeup: nil)
        let recorder = Recorder()
        for sequence in UInt16(0)..<6 { Self.audio(ring, sequence) }
        #expect(ring.dropped == 2)
        _ = ring.drain(into: recorder)
        for sequence in UInt16(6)..<9 { Self.audio(ring, sequence) }
        _ = ring.drain(into: recorder)
        #expect(recorder.sequences == [0, 1, 2, 3, 6, 7, 8])
        #expect(ring.dropped == 2)
    }

    @Test("a payload too big for a slot is dropped and counted, as is a rid longer than a slot holds cut")
    func oversize() {
        let ring = MediaTapRing(capacity: 4, wakeup: nil)
        let big = [UInt8](repeating: 1, count: MediaTapRing.maximumPayload + 1)
        big.withUnsafeBytes { ring.audio(sequence: 1, timestamp: 0, marker: false, payload: $0, now: .zero) }
        let rid = String(repeating: "r", count: 100)
        [1].withUnsafeBytes { ring.video(layer: 0, rid: rid, isPrimary: false, sequence: 2, timestamp: 0, marker: false,
                                         payload: $0, now: .zero) }
        let recorder = Recorder()
        _ = ring.drain(into: recorder)
        #expect(recorder.sequences == [2])
        #expect(recorder.records.first?.contains(" " + String(repeating: "r", count: MediaTapRing.maximumRIDLength) + " ") == true)
        #expect(ring.dropped == 0)  // too big is not the consumer's fault: not a drop of a full ring
    }

    @Test("the consumer's keyframe wish reaches the producer once")
    func keyframe() {
        let ring = MediaTapRing(capacity: 4, wakeup: nil)
        let recorder = Recorder()
        #expect(!ring.takeKeyframeRequest())
        recorder.keyframeWanted = true
        _ = ring.drain(into: recorder)
        #expect(!recorder.keyframeWanted)
        #expect(ring.takeKeyframeRequest())
        #expect(!ring.takeKeyframeRequest())
    }

    @Test("the stream is done only once what came before its end was handed over")
    func finish() {
        let bell = Bell()
        let ring = MediaTapRing(capacity: 4, wakeup: bell)
        let recorder = Recorder()
        #expect(!ring.started)
        ring.start()
        #expect(ring.started)
        Self.audio(ring, 1)
        ring.finish()
        #expect(bell.rings == 1)  // the consumer was idle: one wake for both
        #expect(ring.drain(into: recorder))
        #expect(recorder.sequences == [1])
    }

    @Test("a producer thread and a consumer thread: nothing lost but what is counted, no wake missed")
    func threads() async throws {
        let bell = Bell()
        let ring = MediaTapRing(capacity: 64, wakeup: bell)
        let recorder = Recorder()
        let total = 200_000
        let consumer = Thread {
            while true {
                // A missed wake would leave this thread asleep with records waiting: the
                // timeout only keeps the test from hanging; it is counted below.
                if bell.semaphore.wait(timeout: .now() + 2) == .timedOut { recorder.records.append("timeout") }
                if ring.drain(into: recorder) { break }
            }
        }
        consumer.start()
        for index in 0..<total {
            Self.audio(ring, UInt16(truncatingIfNeeded: index), timestamp: UInt32(index))
            if index % 16 == 15 { ring.announce() }  // a read batch of 16 packets
        }
        ring.announce()
        ring.finish()
        while !consumer.isFinished { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!recorder.records.contains("timeout"))
        #expect(recorder.sequences.count + Int(ring.dropped) == total)
        // In order: drops leave gaps, never reorder.
        #expect(zip(recorder.timestamps, recorder.timestamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(recorder.timestamps.last == UInt32(total - 1) || ring.dropped > 0)
    }

    static func audio(_ ring: MediaTapRing, _ sequence: UInt16, timestamp: UInt32 = 0) {
        [UInt8(truncatingIfNeeded: sequence)].withUnsafeBytes {
            ring.audio(sequence: sequence, timestamp: timestamp, marker: false, payload: $0, now: .zero)
        }
    }
}
