import OnAirPayload
import OnAirWire
import Testing
@testable import OnAirForwarding

/// Per-layer figures for `/api/streams` (simulcast publishers), from real x264 parameter sets.
@Suite("ReceivedLayer")
struct ReceivedLayerTests {
    /// SPS of a 640x360 Constrained Baseline stream (x264, level 3.0), with its NAL header.
    static let sps640x360: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xD9, 0x00, 0xA0, 0x2F, 0xF9, 0x70, 0x11, 0x00, 0x00, 0x03, 0x00,
                                      0x01, 0x00, 0x00, 0x03, 0x00, 0x3C, 0x0F, 0x16, 0x2E, 0x48]
    static let pps: [UInt8] = [0x68, 0xCB, 0x83, 0xCB, 0x20]

    @Test("the picture size comes from the SPS in a STAP-A (RFC 6184 §5.7.1) or alone")
    func sizeFromParameterSets() throws {
        let sps = try H264SPS(nalUnit: Self.sps640x360)
        #expect(sps.width == 640 && sps.height == 360)
        var stap: [UInt8] = [24]
        for nal in [Self.sps640x360, Self.pps] { stap += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
        let fromSTAP = stap.withUnsafeBytes { H264Keyframe.sequenceParameterSet(in: $0) }
        #expect(fromSTAP?.width == 640 && fromSTAP?.height == 360)
        let alone = Self.sps640x360.withUnsafeBytes { H264Keyframe.sequenceParameterSet(in: $0) }
        #expect(alone?.height == 360)
        // A STAP-A whose size runs past the payload is no SPS, and no crash.
        let truncated = Array(stap.prefix(10)).withUnsafeBytes { H264Keyframe.sequenceParameterSet(in: $0) }
        #expect(truncated == nil)
    }

    @Test("bitrate and frame rate over the sampling interval; the size from the keyframe")
    func rates() {
        var layer = ReceivedLayer(ssrc: 7, rid: "h")
        let t0 = MonoTime.seconds(10)
        layer.sample(now: t0)
        var stap: [UInt8] = [24]
        for nal in [Self.sps640x360, Self.pps] { stap += [UInt8(nal.count >> 8), UInt8(nal.count & 0xFF)] + nal }
        stap.withUnsafeBytes { layer.count(size: 1000, marker: false, payload: $0, role: .preamble, now: t0) }
        let delta: [UInt8] = [0x41, 0x9A]
        for frame in 0..<30 {  // 30 frames of 2 packets of 1000 bytes in one second
            delta.withUnsafeBytes { payload in
                if frame > 0 { layer.count(size: 1000, marker: false, payload: payload, role: .other, now: t0) }
                layer.count(size: 1000, marker: true, payload: payload, role: .other, now: t0 + .milliseconds(33 * frame))
            }
        }
        layer.sample(now: t0 + .seconds(1))
        #expect(layer.width == 640 && layer.height == 360)
        #expect(layer.framesPerSecond == 30)
        #expect(layer.bitrate == 480_000)
        #expect(layer.packets == 60)
    }

    @Test("a keyframe's lead: the preamble packets of its access unit right before its IDR, and only those")
    func keyframeLead() {
        var layer = ReceivedLayer(ssrc: 7, rid: "h")
        // STAP-A(SPS, PPS) then the IDR's first fragment: one packet of preamble.
        #expect(layer.keyframeLead(role: .preamble, sequence: 100, timestamp: 9_000) == 0)
        #expect(layer.keyframeLead(role: .idrStart, sequence: 101, timestamp: 9_000) == 1)
        #expect(layer.keyframeLead(role: .other, sequence: 102, timestamp: 9_000) == 0)
        // AUD, SPS, PPS as three packets, across the sequence number wrap.
        for (offset, sequence) in [UInt16(65_534), 65_535, 0].enumerated() {
            #expect(layer.keyframeLead(role: .preamble, sequence: sequence, timestamp: 12_000) == 0, "\(offset)")
        }
        #expect(layer.keyframeLead(role: .idrStart, sequence: 1, timestamp: 12_000) == 3)
        // An IDR with its parameter sets in its own packet has no lead.
        #expect(layer.keyframeLead(role: .idrStart, sequence: 2, timestamp: 15_000) == 0)
        // Parameter sets before a picture that is not IDR, then an IDR of a later access unit.
        #expect(layer.keyframeLead(role: .preamble, sequence: 3, timestamp: 18_000) == 0)
        #expect(layer.keyframeLead(role: .other, sequence: 4, timestamp: 18_000) == 0)
        #expect(layer.keyframeLead(role: .idrStart, sequence: 5, timestamp: 21_000) == 0)
        // A preamble of another access unit (its picture lost) does not lead this IDR.
        #expect(layer.keyframeLead(role: .preamble, sequence: 6, timestamp: 24_000) == 0)
        #expect(layer.keyframeLead(role: .idrStart, sequence: 9, timestamp: 27_000) == 0)
    }
}
