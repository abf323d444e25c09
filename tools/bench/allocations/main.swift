import Foundation
import Glibc
import OnAirPlaneHarness
import OnAirWire

// Counts the heap allocations of the relay's media plane on its per-packet paths, in a
// release build (a debug build calls the standard library's generic code unspecialized,
// which allocates where optimized code does not). In-process, with real ICE, DTLS and SRTP
// peers and a manual clock: a simulcast publisher (f/h/q) and three viewers, one per layer,
// one of them with transport-cc. After a warm-up, every RTP datagram the plane takes in and
// every read batch it fans out and every RTCP datagram it takes in is counted. Exits 1 when
// any of them allocated. The stream is
// tapped for LL-HLS, its ring drained by a consumer as the relay's LL-HLS thread does.
// One viewer has an IPv6 address. `--workers 2`: two media workers, the publisher and one viewer on worker 0, the other two
// viewers on worker 1 (fed through the stream's feed; its drain counts with each read batch).

/// Seconds of stream counted (`--seconds N`, default 10): tools/bench/plane-instructions.sh
/// runs it twice under callgrind with different lengths and divides the difference.
let seconds = CommandLine.arguments.firstIndex(of: "--seconds").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
} ?? 10

/// Media workers (`--workers N`, default 1).
let workers = CommandLine.arguments.firstIndex(of: "--workers").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
} ?? 1

func measure() throws -> (PlaneHarness.AllocationCount, frames: [Int], layers: Set<Int>, tapped: Int, committed: Int) {
    let harness = try PlaneHarness(workers: workers)
    let tap = CountingTapConsumer()
    // `--no-tap`: without LL-HLS (to compare instruction counts with a plane that had no tap).
    if !CommandLine.arguments.contains("--no-tap") { harness.tapConsumer = tap }
    _ = try LiveStream(harness)
    harness.run(for: .seconds(1))
    // The 180p viewer is on IPv6 (sessions are keyed by address on every datagram); the first
    // sends transport-cc feedback, the second REMB, each with receiver reports.
    let viewers = [try harness.watch(transportCC: true, feedback: .transportCC),
                   try harness.watch(maximumHeight: 360, worker: workers > 1 ? 1 : 0, feedback: .remb),
                   try harness.watch(maximumHeight: 180, worker: workers - 1, ipv6: true)]
    try harness.runUntil(timeout: .seconds(3)) { viewers.allSatisfy { !$0.frames.isEmpty } }
    harness.run(for: .seconds(3))
    let before = viewers.map(\.frames.count)
    let tappedBefore = tap.videoPackets + tap.audioPackets
    let builtBefore = harness.sinks.reduce(0) { $0 + $1.committed }
    harness.allocations = PlaneHarness.AllocationCount()
    harness.run(for: .seconds(seconds))
    let built = harness.sinks.reduce(0) { $0 + $1.committed }
    print("  datagrams the plane built in the counted window: \(built - builtBefore)")
    let frames = zip(viewers, before).map { $0.frames.count - $1 }
    return (harness.allocations!, frames, Set(viewers.compactMap { $0.frames.last?.layer }),
            tap.videoPackets + tap.audioPackets - tappedBefore, built)
}

/// `--rtx`: a single-layer publisher that negotiates RTX and loses one video packet in 25 on
/// its way in; the plane NACKs, the publisher answers with RTX, and the repairs are forwarded
/// (recovered from RTX, RFC 4588 §4) like the originals. Two viewers, one per worker with
/// `--workers 2`.
func measureRepair() throws -> (PlaneHarness.AllocationCount, frames: [Int], retransmissions: Int) {
    let harness = try PlaneHarness(workers: workers)
    let stream = try LiveStream(harness, rids: ["f"], rtx: true)
    harness.run(for: .seconds(1))
    let viewers = [try harness.watch(transportCC: true, feedback: .transportCC), try harness.watch(worker: workers - 1, ipv6: true)]
    try harness.runUntil(timeout: .seconds(3)) { viewers.allSatisfy { !$0.frames.isEmpty } }
    let ssrc = stream.publisher.layers[0].ssrc
    var seen = 0
    harness.dropsInbound = { _, datagram in
        guard datagram.count > 12, datagram[8...11].reduce(0, { $0 << 8 | UInt32($1) }) == ssrc else { return false }
        seen += 1
        return seen % 25 == 0
    }
    // The first viewer's link loses one video packet in 30 too: it NACKs them (RTCP in) and
    // the plane answers from its cache.
    viewers[0].nacksGaps = true
    var sent = 0
    harness.drops = { to, datagram in
        guard to == viewers[0].peer.address, datagram.count > 300, datagram[1] & 0x7F == viewers[0].videoPayloadType else { return false }
        sent += 1
        return sent % 30 == 0
    }
    harness.run(for: .seconds(3))
    let before = viewers.map(\.frames.count)
    let sentBefore = stream.publisher.retransmissions
    harness.allocations = PlaneHarness.AllocationCount()
    harness.run(for: .seconds(seconds))
    let answered = harness.snapshot(of: viewers[0])?.retransmissions ?? 0
    print("  NACKed packets the plane resent to the viewer whose link loses: \(answered)")
    guard answered >= seconds else {
        print("FAIL: the viewer's NACKs were not answered; the RTCP count proves nothing")
        exit(1)
    }
    return (harness.allocations!, zip(viewers, before).map { $0.frames.count - $1 }, stream.publisher.retransmissions - sentBefore)
}

/// Something allocated on purpose, kept where the optimizer cannot drop it.
final class Witness { var next: Witness? }
nonisolated(unsafe) var witnesses: Witness?

// The counter counts: one object made while counting is one allocation.
let selfCheck = PlaneHarness.countingAllocations { witnesses = Witness() }
// (Tracing allocates for its backtraces: the check holds without it.)
guard selfCheck == 1 || ProcessInfo.processInfo.environment["ALLOCATION_COUNTER_TRACE"] != nil else {
    print("FAIL: the allocation counter saw \(selfCheck) allocations of one object (is malloc interposed?)")
    exit(1)
}

if CommandLine.arguments.contains("--rtx") {
    let (counted, frames, retransmissions) = try measureRepair()
    print("media plane allocations (release build, \(seconds) s of a single-layer stream losing 1 packet in 25, repaired with RTX, "
          + "2 viewers on \(workers) worker(s))")
    print("  RTP datagrams taken in: \(counted.rtpDatagrams), allocations: \(counted.inbound)")
    print("  read batches fanned out: \(counted.batches), allocations: \(counted.fanOut)")
    print("  RTCP datagrams taken in: \(counted.rtcpDatagrams), allocations: \(counted.rtcp)")
    print("  RTX repairs the publisher sent: \(retransmissions); frames per viewer: \(frames.map(String.init).joined(separator: ", "))")
    guard retransmissions >= seconds, frames.allSatisfy({ $0 >= 29 * seconds }) else {
        print("FAIL: the stream was not repaired as it should be; the count proves nothing")
        exit(1)
    }
    guard counted.inbound == 0 && counted.fanOut == 0 && counted.rtcp == 0 else {
        print("FAIL: the per-packet paths allocated (run with ALLOCATION_COUNTER_TRACE=1 for stacks)")
        exit(1)
    }
    print("OK: no allocation per packet or RTCP datagram")
    exit(0)
}

let (counted, frames, layers, tapped, committed) = try measure()
print("media plane allocations (release build, \(seconds) s of a 3-layer simulcast stream, 3 viewers on \(workers) worker(s), "
      + "LL-HLS tap)")
print("  RTP datagrams taken in: \(counted.rtpDatagrams), allocations: \(counted.inbound)")
print("  read batches fanned out: \(counted.batches), allocations: \(counted.fanOut)")
// RTCP is read in place (RTCPCompoundView): sender reports, receiver reports, transport-cc, REMB.
print("  RTCP datagrams taken in: \(counted.rtcpDatagrams), allocations: \(counted.rtcp)")
print("  frames per viewer: \(frames.map(String.init).joined(separator: ", ")), on layers \(layers.sorted())")
print("  packets handed to the LL-HLS tap: \(tapped)")
print("  datagrams the plane built in place since it started: \(committed)")
guard counted.rtpDatagrams > 100 * seconds, frames.allSatisfy({ $0 >= 28 * seconds }), layers == [0, 1, 2],
      CommandLine.arguments.contains("--no-tap") || tapped * 10 >= counted.rtpDatagrams * 9 else {
    print("FAIL: the stream did not flow as it should; the count proves nothing")
    exit(1)
}
guard counted.inbound == 0 && counted.fanOut == 0 && counted.rtcp == 0 else {
    print("FAIL: the per-packet paths allocated (run with ALLOCATION_COUNTER_TRACE=1 for stacks)")
    exit(1)
}
print("OK: no allocation per packet or RTCP datagram")
