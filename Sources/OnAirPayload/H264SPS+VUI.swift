import OnAirWire

extension H264SPS {
    /// The start of the video usability information (H.264 §E.1.1 `vui_parameters`), up to
    /// and including the timing information. HRD parameters and the bitstream restriction
    /// that follow are not read.
    public struct VUI: Hashable, Sendable {
        /// Table E-1 `aspect_ratio_idc`; 255 (Extended_SAR) means `sarWidth:sarHeight`.
        public var aspectRatioIdc: UInt8?
        public var sarWidth: Int?
        public var sarHeight: Int?
        public var videoFullRange: Bool?
        public var colourPrimaries: UInt8?
        public var transferCharacteristics: UInt8?
        public var matrixCoefficients: UInt8?
        /// §E.2.1 `num_units_in_tick`: time units of a clock tick.
        public var numUnitsInTick: UInt32?
        /// §E.2.1 `time_scale`: time units per second.
        public var timeScale: UInt32?
        public var fixedFrameRate: Bool?

        /// Frames per second when timing is present: one frame lasts two ticks
        /// (§E.2.1, a tick is a field period), so time_scale / (2 · num_units_in_tick).
        public var frameRate: Double? {
            guard let numUnitsInTick, let timeScale, numUnitsInTick > 0 else { return nil }
            return Double(timeScale) / (2 * Double(numUnitsInTick))
        }

        /// Table E-1 sample aspect ratios for aspect_ratio_idc 1...16.
        static let sampleAspectRatios: [(Int, Int)] = [
            (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
            (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
        ]

        /// Reads the VUI. It comes last in the SPS and some encoders truncate it, so a
        /// VUI that ends early yields nil rather than failing the whole SPS.
        init?(reading r: inout H264BitReader) {
            do throws(WireError) {
                try self.init(parsing: &r)
            } catch {
                return nil
            }
        }

        private init(parsing r: inout H264BitReader) throws(WireError) {
            if try r.readFlag() {
                let idc = UInt8(try r.readBits(8))
                aspectRatioIdc = idc
                if idc == 255 {
                    sarWidth = Int(try r.readBits(16))
                    sarHeight = Int(try r.readBits(16))
                } else if (1...16).contains(idc) {
                    (sarWidth, sarHeight) = Self.sampleAspectRatios[Int(idc) - 1]
                }
            }
            if try r.readFlag() { try r.skipBits(1) }  // overscan_appropriate_flag
            if try r.readFlag() {
                try r.skipBits(3)  // video_format
                videoFullRange = try r.readFlag()
                if try r.readFlag() {
                    colourPrimaries = UInt8(try r.readBits(8))
                    transferCharacteristics = UInt8(try r.readBits(8))
                    matrixCoefficients = UInt8(try r.readBits(8))
                }
            }
            if try r.readFlag() {  // chroma_loc_info_present_flag
                _ = try r.readUE()
                _ = try r.readUE()
            }
            if try r.readFlag() {  // timing_info_present_flag
                numUnitsInTick = try r.readBits(32)
                timeScale = try r.readBits(32)
                fixedFrameRate = try r.readFlag()
            }
        }
    }
}
