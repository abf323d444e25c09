import OnAirWire

/// An H.264 sequence parameter set (H.264 §7.3.2.1.1 `seq_parameter_set_data`), parsed far
/// enough for a packager: profile, level, chroma format, frame numbering, picture order
/// count, reference frames, the displayed size and the VUI timing (§E.1.1).
///
/// Built from a whole SPS NAL unit (header byte included, emulation prevention bytes in
/// place). Hostile input throws ``WireError``; no field read can trap.
public struct H264SPS: Hashable, Sendable {
    /// H.264 §7.4.2.1.1 `pic_order_cnt_type` and the fields each type carries.
    public enum PicOrderCount: Hashable, Sendable {
        /// Order from `pic_order_cnt_lsb` in slice headers.
        case type0(log2MaxPicOrderCntLsb: Int)
        /// Order from `frame_num` and the cycle of expected deltas.
        case type1(deltaPicOrderAlwaysZero: Bool, offsetForNonRefPic: Int32,
                   offsetForTopToBottomField: Int32, offsetsForRefFrame: [Int32])
        /// Output order equals decoding order.
        case type2

        public var type: Int {
            switch self {
            case .type0: return 0
            case .type1: return 1
            case .type2: return 2
            }
        }
    }

    /// H.264 §7.4.2.1.1 `frame_crop_*_offset`, in crop units (not pixels).
    public struct FrameCropping: Hashable, Sendable {
        public var left, right, top, bottom: Int
    }

    /// `profile_idc` values whose SPS carries chroma_format_idc, bit depths and scaling
    /// matrices (the `if` at the top of H.264 §7.3.2.1.1).
    public static let profilesWithChromaInfo: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    public let profileIdc: UInt8
    /// The byte after profile_idc: constraint_set0_flag (0x80) ... constraint_set5_flag
    /// (0x04) and two reserved zero bits. The avcC `profile_compatibility` byte.
    public let constraintFlags: UInt8
    public let levelIdc: UInt8
    public let seqParameterSetId: Int
    /// 0 = monochrome, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4; 1 when the profile does not say.
    public let chromaFormatIdc: Int
    public let separateColourPlane: Bool
    public let bitDepthLuma: Int
    public let bitDepthChroma: Int
    public let qpprimeYZeroTransformBypass: Bool
    /// `seq_scaling_matrix_present_flag` (the lists themselves are skipped).
    public let hasScalingMatrix: Bool
    public let log2MaxFrameNum: Int
    public let picOrderCount: PicOrderCount
    /// `max_num_ref_frames`.
    public let maxNumRefFrames: Int
    public let gapsInFrameNumAllowed: Bool
    public let picWidthInMbs: Int
    public let picHeightInMapUnits: Int
    public let frameMbsOnly: Bool
    public let mbAdaptiveFrameField: Bool
    public let direct8x8Inference: Bool
    public let frameCropping: FrameCropping?
    /// Video usability information, nil when absent (or unreadable: see ``VUI``).
    public let vui: VUI?
    /// Displayed width in luma samples, after cropping (H.264 equations 7-18, 7-19).
    public let width: Int
    /// Displayed height in luma samples, after cropping (H.264 equations 7-18, 7-20).
    public let height: Int

    /// `constraint_set<index>_flag`, index 0...5.
    public func constraintSet(_ index: Int) -> Bool {
        guard (0...5).contains(index) else { return false }
        return constraintFlags & (0x80 >> UInt8(index)) != 0
    }

    /// Parses an SPS NAL unit (type 7, header byte first).
    public init<Bytes: Collection>(nalUnit: Bytes) throws(WireError) where Bytes.Element == UInt8 {
        let rbsp = H264RBSP.unescape(nalUnit)
        guard let header = rbsp.first else { throw .truncated }
        guard H264NALUnitHeader(header).type == .sps else {
            throw .invalid("NAL unit type \(H264NALUnitHeader(header).type.rawValue) is not an SPS (7)")
        }
        var r = H264BitReader(rbsp, byteOffset: 1)
        profileIdc = UInt8(try r.readBits(8))
        constraintFlags = UInt8(try r.readBits(8))
        levelIdc = UInt8(try r.readBits(8))
        seqParameterSetId = Int(try r.readUE(in: 0...31, "seq_parameter_set_id"))

        var chromaFormatIdc = 1
        var separateColourPlane = false
        var bitDepthLuma = 8, bitDepthChroma = 8
        var bypass = false, hasScalingMatrix = false
        if Self.profilesWithChromaInfo.contains(profileIdc) {
            chromaFormatIdc = Int(try r.readUE(in: 0...3, "chroma_format_idc"))
            if chromaFormatIdc == 3 { separateColourPlane = try r.readFlag() }
            bitDepthLuma = 8 + Int(try r.readUE(in: 0...6, "bit_depth_luma_minus8"))
            bitDepthChroma = 8 + Int(try r.readUE(in: 0...6, "bit_depth_chroma_minus8"))
            bypass = try r.readFlag()
            hasScalingMatrix = try r.readFlag()
            if hasScalingMatrix {
                for list in 0..<(chromaFormatIdc != 3 ? 8 : 12) {
                    if try r.readFlag() { try Self.skipScalingList(&r, size: list < 6 ? 16 : 64) }
                }
            }
        }
        self.chromaFormatIdc = chromaFormatIdc
        self.separateColourPlane = separateColourPlane
        self.bitDepthLuma = bitDepthLuma
        self.bitDepthChroma = bitDepthChroma
        qpprimeYZeroTransformBypass = bypass
        self.hasScalingMatrix = hasScalingMatrix

        log2MaxFrameNum = 4 + Int(try r.readUE(in: 0...12, "log2_max_frame_num_minus4"))
        switch try r.readUE(in: 0...2, "pic_order_cnt_type") {
        case 0:
            picOrderCount = .type0(log2MaxPicOrderCntLsb: 4 + Int(try r.readUE(in: 0...12, "log2_max_pic_order_cnt_lsb_minus4")))
        case 1:
            let alwaysZero = try r.readFlag()
            let nonRef = try r.readSE()
            let topToBottom = try r.readSE()
            let cycle = Int(try r.readUE(in: 0...255, "num_ref_frames_in_pic_order_cnt_cycle"))
            var offsets: [Int32] = []
            offsets.reserveCapacity(cycle)
            for _ in 0..<cycle { offsets.append(try r.readSE()) }
            picOrderCount = .type1(deltaPicOrderAlwaysZero: alwaysZero, offsetForNonRefPic: nonRef,
                                   offsetForTopToBottomField: topToBottom, offsetsForRefFrame: offsets)
        default:
            picOrderCount = .type2
        }
        maxNumRefFrames = Int(try r.readUE())
        gapsInFrameNumAllowed = try r.readFlag()
        picWidthInMbs = Int(try r.readUE()) + 1
        picHeightInMapUnits = Int(try r.readUE()) + 1
        frameMbsOnly = try r.readFlag()
        mbAdaptiveFrameField = try frameMbsOnly ? false : r.readFlag()
        direct8x8Inference = try r.readFlag()
        if try r.readFlag() {
            frameCropping = FrameCropping(left: Int(try r.readUE()), right: Int(try r.readUE()),
                                          top: Int(try r.readUE()), bottom: Int(try r.readUE()))
        } else {
            frameCropping = nil
        }
        vui = try r.readFlag() ? VUI(reading: &r) : nil

        // H.264 §7.4.2.1.1: crop units depend on ChromaArrayType and field coding.
        let chromaArrayType = separateColourPlane ? 0 : chromaFormatIdc
        let fieldFactor = frameMbsOnly ? 1 : 2
        let cropUnitX = chromaArrayType == 0 ? 1 : (chromaFormatIdc == 3 ? 1 : 2)
        let cropUnitY = (chromaArrayType == 0 ? 1 : (chromaFormatIdc == 1 ? 2 : 1)) * fieldFactor
        let crop = frameCropping ?? FrameCropping(left: 0, right: 0, top: 0, bottom: 0)
        width = picWidthInMbs * 16 - cropUnitX * (crop.left + crop.right)
        height = fieldFactor * picHeightInMapUnits * 16 - cropUnitY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else {
            throw .invalid("SPS cropping leaves a \(width)x\(height) picture")
        }
    }

    /// H.264 §7.3.2.1.1.1 `scaling_list()`: read and discarded, since only the bit
    /// position after it matters here. A delta that makes nextScale 0 ends the list early
    /// (the rest repeats lastScale, with no more bits coded).
    private static func skipScalingList(_ r: inout H264BitReader, size: Int) throws(WireError) {
        var lastScale: Int32 = 8
        var nextScale: Int32 = 8
        for _ in 0..<size {
            if nextScale != 0 {
                let delta = try r.readSE()
                guard (-128...127).contains(delta) else { throw .invalid("delta_scale \(delta) is outside -128...127") }
                nextScale = (lastScale + delta + 256) % 256
            }
            if nextScale != 0 { lastScale = nextScale }
        }
    }
}
