import Foundation
import OnAirWire
import Testing

@testable import OnAirPayload
import OnAirTestSupport

/// SPS parsing checked against streams that libx264 (through ffmpeg) and FFmpeg's own SPS
/// writer (the h264_metadata filter) produce on this machine, with ffprobe's idea of the
/// picture and FFmpeg's trace_headers dump of every syntax element as references.
@Suite("H.264 SPS (H.264 §7.3.2.1.1)")
struct H264SPSTests {
    struct EncoderCase: Sendable, CustomTestStringConvertible {
        var name: String
        var size = "1280x720"
        var pixelFormat = "yuv420p"
        var profile: String?
        var preset = "veryfast"
        var x264Params: String?
        var filter = "h264_mp4toannexb"
        var ffprobeProfile: String
        var profileIdc: UInt8
        var chromaFormatIdc = 1
        var bitDepth = 8
        var picOrderCountType: Int
        var frameMbsOnly = true
        var testDescription: String { name }
    }

    static let encoderCases: [EncoderCase] = [
        EncoderCase(name: "baseline 720p", profile: "baseline", preset: "ultrafast", ffprobeProfile: "Constrained Baseline", profileIdc: 66, picOrderCountType: 2),
        EncoderCase(name: "main 720p with B-frames", profile: "main", ffprobeProfile: "Main", profileIdc: 77, picOrderCountType: 0),
        EncoderCase(name: "high 720p", profile: "high", ffprobeProfile: "High", profileIdc: 100, picOrderCountType: 0),
        EncoderCase(name: "high 1080p (cropped bottom)", size: "1920x1080", profile: "high", ffprobeProfile: "High", profileIdc: 100, picOrderCountType: 0),
        EncoderCase(name: "interlaced 1080 (field map units)", size: "1920x1080", profile: "high", x264Params: "interlaced=1",
                    ffprobeProfile: "High", profileIdc: 100, picOrderCountType: 0, frameMbsOnly: false),
        EncoderCase(name: "854x480 (cropped right)", size: "854x480", profile: "main", ffprobeProfile: "Main", profileIdc: 77, picOrderCountType: 0),
        EncoderCase(name: "high 10", pixelFormat: "yuv420p10le", profile: "high10", ffprobeProfile: "High 10", profileIdc: 110,
                    bitDepth: 10, picOrderCountType: 0),
        EncoderCase(name: "high 4:2:2 1366x766", size: "1366x766", pixelFormat: "yuv422p", profile: "high422",
                    ffprobeProfile: "High 4:2:2", profileIdc: 122, chromaFormatIdc: 2, picOrderCountType: 0),
        EncoderCase(name: "high 4:4:4 640x360", size: "640x360", pixelFormat: "yuv444p", profile: "high444",
                    ffprobeProfile: "High 4:4:4 Predictive", profileIdc: 244, chromaFormatIdc: 3, picOrderCountType: 0),
        EncoderCase(name: "rewritten by FFmpeg h264_metadata (crop, SAR, colour, chroma location, tick rate)",
                    filter: "h264_metadata=sample_aspect_ratio=5/7:video_full_range_flag=1:colour_primaries=9:"
                        + "transfer_characteristics=16:matrix_coefficients=9:chroma_sample_loc_type=2:"
                        + "tick_rate=60000/1001:crop_left=16:crop_right=8:crop_top=4:crop_bottom=6:level=4.1",
                    ffprobeProfile: "High", profileIdc: 100, picOrderCountType: 0),
    ]

    @Test("SPS from a real encoder matches ffprobe and trace_headers", arguments: encoderCases)
    func encoderStream(_ c: EncoderCase) throws {
        let url = try MediaTools.x264(size: c.size, frames: 2, pixelFormat: c.pixelFormat, profile: c.profile,
                                      preset: c.preset, x264Params: c.x264Params, bitstreamFilter: c.filter)
        let stream = try MediaTools.bytes(of: url)
        let spsNAL = try #require(AnnexB.split(stream).first { H264NALUnitHeader($0.first!).type == .sps })
        let sps = try H264SPS(nalUnit: spsNAL)

        #expect(sps.profileIdc == c.profileIdc)
        #expect(sps.chromaFormatIdc == c.chromaFormatIdc)
        #expect(sps.bitDepthLuma == c.bitDepth && sps.bitDepthChroma == c.bitDepth)
        #expect(sps.picOrderCount.type == c.picOrderCountType)
        #expect(sps.frameMbsOnly == c.frameMbsOnly)

        let probe = try MediaTools.probeStream(url, entries: "width,height,profile,level,r_frame_rate,sample_aspect_ratio")
        #expect(probe["width"] == String(sps.width))
        #expect(probe["height"] == String(sps.height))
        #expect(probe["profile"] == c.ffprobeProfile)
        #expect(probe["level"] == String(sps.levelIdc))
        let rate = try #require(probe["r_frame_rate"]?.split(separator: "/").compactMap { Double($0) })
        let frameRate = try #require(sps.vui?.frameRate)
        #expect(abs(frameRate - rate[0] / rate[1]) < 1e-6)
        if let sar = probe["sample_aspect_ratio"], sar != "N/A", let vui = sps.vui, let w = vui.sarWidth, let h = vui.sarHeight {
            #expect(sar == "\(w):\(h)")
        }

        let trace = try #require(try MediaTools.traceSPS(url).first)
        expect(sps, matches: trace)
    }

    @Test("the frame-size arithmetic of H.264 §7.4.2.1.1 for cropping and fields")
    func frameSizes() throws {
        // 1080i: 34 map units of 32 lines; 4:2:0 field crop unit 4 → 1088 - 2·4.
        let interlaced = try H264SPS(nalUnit: Self.handcrafted(frameMbsOnly: false, heightInMapUnits: 34, crop: (0, 0, 0, 2)))
        #expect(interlaced.width == 1920 && interlaced.height == 1080)
        #expect(!interlaced.frameMbsOnly)
        let cropped = try H264SPS(nalUnit: Self.handcrafted(crop: (3, 5, 1, 4)))
        #expect(cropped.width == 1920 - 2 * 8 && cropped.height == 1088 - 2 * 5)
        #expect(cropped.frameCropping == H264SPS.FrameCropping(left: 3, right: 5, top: 1, bottom: 4))
        #expect(throws: WireError.self) { try H264SPS(nalUnit: Self.handcrafted(crop: (500, 500, 0, 0))) }
    }

    /// Scaling lists and picture order count type 1 come from no encoder here, so these
    /// parameter sets are written by hand and read back by both this parser and FFmpeg.
    @Test("hand-written SPS with scaling lists and POC type 1 agrees with trace_headers")
    func handcraftedAgainstFFmpeg() throws {
        let nal = Self.handcrafted(scalingLists: true, pocType1Offsets: [-2, 5, 1000], crop: (0, 0, 0, 4))
        let sps = try H264SPS(nalUnit: nal)
        #expect(sps.hasScalingMatrix)
        #expect(sps.picOrderCount == .type1(deltaPicOrderAlwaysZero: false, offsetForNonRefPic: -3,
                                            offsetForTopToBottomField: 7, offsetsForRefFrame: [-2, 5, 1000]))
        #expect(sps.width == 1920 && sps.height == 1080)
        #expect(sps.vui?.numUnitsInTick == 1001 && sps.vui?.timeScale == 48000)

        let url = MediaTools.directory.appendingPathComponent("\(UUID().uuidString).h264")
        try Data(AnnexB.join([nal, Self.minimalPPS])).write(to: url)
        let trace = try #require(try MediaTools.traceSPS(url).first)
        #expect(trace["seq_scaling_matrix_present_flag"] == 1)
        #expect(trace["offset_for_ref_frame[2]"] == 1000)
        expect(sps, matches: trace)
    }

    @Test("a NAL unit that is not an SPS, and every truncation of a real one, throw instead of trapping")
    func hostile() throws {
        let nal = Self.handcrafted(scalingLists: true, pocType1Offsets: [1, 2], crop: (1, 1, 1, 1))
        #expect(throws: WireError.self) { try H264SPS(nalUnit: [0x68] + nal.dropFirst()) }
        #expect(throws: WireError.self) { try H264SPS(nalUnit: [UInt8]()) }
        for length in 0..<nal.count - 1 {
            _ = try? H264SPS(nalUnit: nal.prefix(length))
        }
        var rng = SplitMix64(seed: 5)
        for _ in 0..<5000 {
            var bytes = [UInt8(0x67)] + (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? H264SPS(nalUnit: bytes)
            bytes = nal
            bytes[Int.random(in: 1..<bytes.count, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng)
            _ = try? H264SPS(nalUnit: bytes)
        }
    }

    /// Writes an SPS (High profile, 1920 wide, `heightInMapUnits` map units) field by field.
    static func handcrafted(scalingLists: Bool = false, pocType1Offsets: [Int64]? = nil, frameMbsOnly: Bool = true,
                            heightInMapUnits: UInt64 = 68, crop: (UInt64, UInt64, UInt64, UInt64)? = nil) -> [UInt8] {
        var w = BitWriter()
        w.bits(100, 8)                // profile_idc
        w.bits(0, 8)                  // constraint flags
        w.bits(40, 8)                 // level_idc
        w.ue(0)                       // seq_parameter_set_id
        w.ue(1)                       // chroma_format_idc 4:2:0
        w.ue(0)                       // bit_depth_luma_minus8
        w.ue(0)                       // bit_depth_chroma_minus8
        w.bit(false)                  // qpprime_y_zero_transform_bypass_flag
        w.bit(scalingLists)           // seq_scaling_matrix_present_flag
        if scalingLists {
            // list 0: explicit 16 deltas; list 1: delta -8 makes nextScale 0 at once
            // (useDefaultScalingMatrixFlag, no more bits); lists 2-5 absent; list 6: an
            // explicit 8x8 list; list 7: absent.
            w.bit(true)
            for j in 0..<16 { w.se(Int64(j % 5) - 2) }
            w.bit(true)
            w.se(-8)
            for _ in 2..<6 { w.bit(false) }
            w.bit(true)
            for j in 0..<64 { w.se(j == 0 ? 8 : (j % 2 == 0 ? 1 : -1)) }
            w.bit(false)
        }
        w.ue(0)                       // log2_max_frame_num_minus4
        if let offsets = pocType1Offsets {
            w.ue(1)                   // pic_order_cnt_type
            w.bit(false)              // delta_pic_order_always_zero_flag
            w.se(-3)                  // offset_for_non_ref_pic
            w.se(7)                   // offset_for_top_to_bottom_field
            w.ue(UInt64(offsets.count))
            for offset in offsets { w.se(offset) }
        } else {
            w.ue(2)
        }
        w.ue(4)                       // max_num_ref_frames
        w.bit(false)                  // gaps_in_frame_num_value_allowed_flag
        w.ue(119)                     // pic_width_in_mbs_minus1: 1920
        w.ue(heightInMapUnits - 1)    // pic_height_in_map_units_minus1
        w.bit(frameMbsOnly)
        if !frameMbsOnly { w.bit(true) }  // mb_adaptive_frame_field_flag
        w.bit(true)                   // direct_8x8_inference_flag
        w.bit(crop != nil)
        if let crop {
            w.ue(crop.0)
            w.ue(crop.1)
            w.ue(crop.2)
            w.ue(crop.3)
        }
        w.bit(true)                   // vui_parameters_present_flag
        w.bit(false)                  // aspect_ratio_info_present_flag
        w.bit(false)                  // overscan_info_present_flag
        w.bit(false)                  // video_signal_type_present_flag
        w.bit(false)                  // chroma_loc_info_present_flag
        w.bit(true)                   // timing_info_present_flag
        w.bits(1001, 32)
        w.bits(48000, 32)
        w.bit(true)                   // fixed_frame_rate_flag
        for _ in 0..<4 { w.bit(false) }  // nal_hrd, vcl_hrd, pic_struct_present, bitstream_restriction
        w.trailingBits()
        return [0x67] + H264RBSP.escape(w.bytes)
    }

    /// pic_parameter_set_rbsp with every field at its simplest value (H.264 §7.3.2.2).
    static let minimalPPS: [UInt8] = {
        var w = BitWriter()
        w.ue(0); w.ue(0)              // pic_parameter_set_id, seq_parameter_set_id
        w.bit(false); w.bit(false)    // entropy_coding_mode_flag, bottom_field_pic_order_in_frame_present_flag
        w.ue(0); w.ue(0); w.ue(0)     // num_slice_groups_minus1, num_ref_idx_l0/l1_default_active_minus1
        w.bit(false); w.bits(0, 2)    // weighted_pred_flag, weighted_bipred_idc
        w.se(0); w.se(0); w.se(0)     // pic_init_qp_minus26, pic_init_qs_minus26, chroma_qp_index_offset
        w.bit(true); w.bit(false); w.bit(false)
        w.trailingBits()
        return [0x68] + H264RBSP.escape(w.bytes)
    }()

    /// Every syntax element FFmpeg printed that this parser keeps must agree.
    private func expect(_ sps: H264SPS, matches t: [String: Int], sourceLocation: SourceLocation = #_sourceLocation) {
        func check(_ name: String, _ value: Int?, default fallback: Int? = nil) {
            guard let expected = t[name] ?? fallback else { return }
            #expect(value == expected, "\(name)", sourceLocation: sourceLocation)
        }
        check("profile_idc", Int(sps.profileIdc))
        for i in 0...5 { check("constraint_set\(i)_flag", sps.constraintSet(i) ? 1 : 0) }
        check("level_idc", Int(sps.levelIdc))
        check("seq_parameter_set_id", sps.seqParameterSetId)
        check("chroma_format_idc", sps.chromaFormatIdc, default: 1)
        check("separate_colour_plane_flag", sps.separateColourPlane ? 1 : 0)
        check("bit_depth_luma_minus8", sps.bitDepthLuma - 8, default: 0)
        check("bit_depth_chroma_minus8", sps.bitDepthChroma - 8, default: 0)
        check("seq_scaling_matrix_present_flag", sps.hasScalingMatrix ? 1 : 0, default: 0)
        check("log2_max_frame_num_minus4", sps.log2MaxFrameNum - 4)
        check("pic_order_cnt_type", sps.picOrderCount.type)
        switch sps.picOrderCount {
        case .type0(let lsb):
            check("log2_max_pic_order_cnt_lsb_minus4", lsb - 4)
        case .type1(let zero, let nonRef, let topBottom, let offsets):
            check("delta_pic_order_always_zero_flag", zero ? 1 : 0)
            check("offset_for_non_ref_pic", Int(nonRef))
            check("offset_for_top_to_bottom_field", Int(topBottom))
            check("num_ref_frames_in_pic_order_cnt_cycle", offsets.count)
            for (i, offset) in offsets.enumerated() { check("offset_for_ref_frame[\(i)]", Int(offset)) }
        case .type2:
            break
        }
        check("max_num_ref_frames", sps.maxNumRefFrames)
        check("gaps_in_frame_num_allowed_flag", sps.gapsInFrameNumAllowed ? 1 : 0)
        check("pic_width_in_mbs_minus1", sps.picWidthInMbs - 1)
        check("pic_height_in_map_units_minus1", sps.picHeightInMapUnits - 1)
        check("frame_mbs_only_flag", sps.frameMbsOnly ? 1 : 0)
        check("direct_8x8_inference_flag", sps.direct8x8Inference ? 1 : 0)
        check("frame_cropping_flag", sps.frameCropping == nil ? 0 : 1)
        check("frame_crop_left_offset", sps.frameCropping?.left)
        check("frame_crop_right_offset", sps.frameCropping?.right)
        check("frame_crop_top_offset", sps.frameCropping?.top)
        check("frame_crop_bottom_offset", sps.frameCropping?.bottom)
        check("vui_parameters_present_flag", sps.vui == nil ? 0 : 1)
        check("aspect_ratio_idc", sps.vui?.aspectRatioIdc.map(Int.init))
        check("sar_width", sps.vui?.sarWidth)
        check("sar_height", sps.vui?.sarHeight)
        check("video_full_range_flag", sps.vui?.videoFullRange.map { $0 ? 1 : 0 })
        check("colour_primaries", sps.vui?.colourPrimaries.map(Int.init))
        check("transfer_characteristics", sps.vui?.transferCharacteristics.map(Int.init))
        check("matrix_coefficients", sps.vui?.matrixCoefficients.map(Int.init))
        check("num_units_in_tick", sps.vui?.numUnitsInTick.map(Int.init))
        check("time_scale", sps.vui?.timeScale.map(Int.init))
        check("fixed_frame_rate_flag", sps.vui?.fixedFrameRate.map { $0 ? 1 : 0 })
        #expect(t.count > 20, "trace_headers printed the SPS", sourceLocation: sourceLocation)
    }
}
