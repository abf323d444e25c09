import FuzzSupport
import OnAirWire

// fuzz-tcpframing: one input is the start of an ICE-TCP connection's byte stream (RFC 4571
// framing, RFC 6544 §3) as a peer sends it: the first byte picks the deframer's limit, the
// second and third seed how the reads split the rest.
//
// Checks: the same packets come out whatever the split (and as a one-shot read does); no
// packet is longer than the limit; what is held between reads is never more than one packet;
// the packets and the oversize count account for the stream.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let limit = [1, 12, 200, 1_500, 2_048, 65_535][Int(input.byte()) % 6]
    var seed = UInt64(input.uint16()) | 1
    let stream = Array(input.bytes[min(input.offset, input.bytes.count)...])

    func deframe(split: Bool) -> (frames: [[UInt8]], oversize: UInt64, held: Int) {
        var deframer = RFC4571Deframer(maximumFrame: limit)
        var frames: [[UInt8]] = []
        var start = 0
        while start < stream.count {
            var end = stream.count
            if split {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                end = min(stream.count, start + 1 + Int(seed >> 33) % 700)
            }
            stream[start..<end].withUnsafeBytes { deframer.feed($0) { frames.append(Array($0)) } }
            fuzzCheck(deframer.buffered <= limit, "holds \(deframer.buffered) bytes, limit \(limit)")
            start = end
        }
        return (frames, deframer.oversizeFrames, deframer.buffered)
    }

    let whole = deframe(split: false)
    let pieces = deframe(split: true)
    fuzzCheck(whole.frames == pieces.frames && whole.oversize == pieces.oversize && whole.held == pieces.held,
              "a split changed what came out: \(whole.frames.count) / \(pieces.frames.count) packets")
    fuzzCheck(whole.frames.allSatisfy { !$0.isEmpty && $0.count <= limit }, "a packet over the limit \(limit) or empty")
    let framedBytes = whole.frames.reduce(0) { $0 + 2 + $1.count }
    fuzzCheck(framedBytes <= stream.count, "more bytes out than in")
    return 0
}
