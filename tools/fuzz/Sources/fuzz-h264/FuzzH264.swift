import FuzzSupport
import OnAirHLS
import OnAirPayload

// fuzz-h264: one input is a run of RTP packets of one video layer as the LL-HLS branch gets
// them (each chunk: a flag byte, then the payload; the flag's bits move the sequence number
// and timestamp and set the marker), fed through the path the relay's HLS tap runs:
// reordering and the RFC 6184 depacketizer (single NAL unit §5.6, STAP-A §5.7.1, FU-A §5.8),
// the access-unit assembler, then for each access unit the SPS parser (H.264 §7.3.2.1), the
// 'avcC' record and the sample entry (ISO/IEC 14496-15 §5.3.3.1) the packager builds, and
// the AVCC sample. The same packets also go through the Opus depacketizer (RFC 7587).
//
// Invariants: an access unit handed out is non-empty, within the size bound, and a keyframe
// only with an IDR; its AVCC sample splits back into its NAL units; an 'avcC' record parses
// back to itself.

private let maxAccessUnitSize = 1 << 16

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    var video = H264Depacketizer(configuration: .init(reorderWindow: 8, maxAccessUnitSize: maxAccessUnitSize,
                                                      waitsForFirstKeyframe: input.byte() & 1 == 0))
    var audio = OpusDepacketizer(reorderWindow: 4)
    var sequence: UInt16 = 65_530   // wraps within the first packets
    var timestamp: UInt32 = 4_294_960_000
    var units: [H264AccessUnit] = []
    while let chunk = input.chunk() {
        let flags = chunk.first ?? 0
        // Mostly in order; sometimes a step back or a jump (reordering and loss).
        switch flags & 0x07 {
        case 0: sequence &-= 2
        case 1: sequence &+= 5
        default: sequence &+= 1
        }
        if flags & 0x08 != 0 { timestamp &+= 3_000 }
        let packet = RTPPayloadPacket(sequenceNumber: sequence, timestamp: timestamp, marker: flags & 0x10 != 0,
                                      payload: chunk.dropFirst())
        video.receive(packet) { units.append($0) }
        audio.receive(packet) { frame in
            fuzzCheck(!frame.packet.isEmpty, "an empty Opus frame was handed out")
        }
    }
    video.flush { units.append($0) }
    audio.flush { _ in }
    for unit in units { check(unit) }
    return 0
}

private func check(_ unit: H264AccessUnit) {
    fuzzCheck(!unit.nalUnits.isEmpty, "an access unit without NAL units")
    fuzzCheck(!unit.nalUnits.contains { $0.isEmpty }, "an empty NAL unit")
    fuzzCheck(unit.nalUnits.reduce(0) { $0 + $1.count } <= maxAccessUnitSize, "an access unit over the size bound")
    fuzzCheck(!unit.isKeyframe || unit.containsIDR, "a keyframe without an IDR picture")
    let sample = unit.avccSample
    let split = try? AVCC.split(sample)
    fuzzCheck(split?.map(Array.init) == unit.nalUnits, "the AVCC sample does not split back into its NAL units")
    _ = unit.annexB
    guard let sps = unit.sps else { return }
    _ = try? H264SPS(nalUnit: sps)
    guard let pps = unit.pps else { return }
    if let record = try? AVCDecoderConfigurationRecord(sps: sps, pps: pps, lengthSize: 4) {
        let bytes = record.serialize()
        fuzzCheck((try? AVCDecoderConfigurationRecord(parsing: bytes)) == record, "the avcC record does not parse back")
    }
    _ = try? AVCSampleEntry(sps: sps, pps: pps)
    _ = VideoAccessUnit(unit, timestamp: Int64(unit.timestamp))
}
