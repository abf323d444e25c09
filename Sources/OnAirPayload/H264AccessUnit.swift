/// One complete H.264 access unit (H.264 §7.4.1.2.3: the NAL units of one primary coded
/// picture and what belongs with it), as a depacketizer hands it out.
public struct H264AccessUnit: Hashable, Sendable {
    /// The RTP timestamp shared by its packets (90 kHz clock, RFC 6184 §5.1).
    public var timestamp: UInt32
    /// NAL units in decoding order, without start codes or length prefixes.
    public var nalUnits: [[UInt8]]
    /// The access unit holds an IDR picture and arrived whole: decoding can start here.
    public var isKeyframe: Bool
    /// The newest SPS among the access units handed out so far, this one included (what a
    /// packager puts in its avcC). Nil until one has come.
    public var sps: [UInt8]?
    /// The newest PPS among the access units handed out so far, this one included.
    public var pps: [UInt8]?

    public init(timestamp: UInt32, nalUnits: [[UInt8]], isKeyframe: Bool, sps: [UInt8]? = nil, pps: [UInt8]? = nil) {
        self.timestamp = timestamp
        self.nalUnits = nalUnits
        self.isKeyframe = isKeyframe
        self.sps = sps
        self.pps = pps
    }

    /// Whether any NAL unit is a slice of an IDR picture (type 5).
    public var containsIDR: Bool {
        nalUnits.contains { $0.first.map { H264NALUnitHeader($0).type == .idrSlice } ?? false }
    }

    /// The NAL units as a 4-byte length-prefixed sample (an fMP4 `mdat` entry).
    public var avccSample: [UInt8] { AVCC.join(nalUnits) }

    /// The NAL units as an Annex B byte stream.
    public var annexB: [UInt8] { AnnexB.join(nalUnits) }
}
