/// How the broadcaster drives libx264: live settings only (no B-frames, no lookahead).
public struct H264EncoderSettings: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var framesPerSecond: Int
    /// Average target in bits/s (ABR); the VBV caps peaks at the same rate.
    public var bitrate: Int
    /// VBV buffer in seconds of `bitrate`: smaller keeps frame sizes even (fewer bursts on the
    /// network), larger keeps quality steadier. WebRTC encoders run close to 1 s.
    public var vbvBufferSeconds: Double
    /// Frames between IDRs (also the longest a new viewer waits without asking for one).
    public var gop: Int
    /// x264 speed preset ("ultrafast" ... "placebo").
    public var preset: String
    /// x264 profile name: "baseline" gives Constrained Baseline (RFC 6184 profile-level-id 42e0xx),
    /// what every WebRTC receiver decodes; "main" and "high" when the answer allows them.
    public var profile: String
    /// level_idc (e.g. 31 for level 3.1) written into the SPS; must be the level the answer agreed.
    public var levelIDC: Int
    /// x264 worker threads; 0 lets x264 choose (sliced threads under zerolatency).
    public var threads: Int

    public init(width: Int, height: Int, framesPerSecond: Int, bitrate: Int, vbvBufferSeconds: Double = 1.0,
                gop: Int, preset: String = "veryfast", profile: String = "baseline", levelIDC: Int = 31, threads: Int = 0) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.bitrate = bitrate
        self.vbvBufferSeconds = vbvBufferSeconds
        self.gop = gop
        self.preset = preset
        self.profile = profile
        self.levelIDC = levelIDC
        self.threads = threads
    }

    /// The lowest H.264 level (ITU-T H.264 Table A-1) whose MaxFS and MaxMBPS fit this size and
    /// rate: what our offer asks for, so the SPS and the SDP agree.
    public var minimumLevelIDC: Int {
        let macroblocks = ((width + 15) / 16) * ((height + 15) / 16)
        let perSecond = macroblocks * framesPerSecond
        // (level_idc, MaxFS, MaxMBPS)
        let table: [(Int, Int, Int)] = [
            (30, 1620, 40_500), (31, 3600, 108_000), (32, 5120, 216_000), (40, 8192, 245_760),
            (42, 8704, 522_240), (50, 22_080, 589_824), (51, 36_864, 983_040), (52, 36_864, 2_073_600),
        ]
        return table.first { macroblocks <= $0.1 && perSecond <= $0.2 }?.0 ?? 52
    }
}
