/// The RFC 6184 §8.1 fmtp parameters that decide whether two H.264 payload types can carry the
/// same stream: profile-level-id, packetization-mode and level-asymmetry-allowed (RFC 6184
/// §8.2.2 as updated for WebRTC by RFC 7742 §6.2).
public struct H264FormatParameters: Sendable, Equatable {
    /// The fmtp's profile-level-id, or `H264ProfileLevelID.absentDefault` when it is absent.
    public var profileLevelID: H264ProfileLevelID
    /// RFC 6184 §8.1: 0 (single NAL unit) when absent; 1 (non-interleaved, FU-A/STAP-A) is what
    /// every WebRTC stack sends and what this relay requires.
    public var packetizationMode: Int
    public var levelAsymmetryAllowed: Bool

    public init(profileLevelID: H264ProfileLevelID, packetizationMode: Int = 1, levelAsymmetryAllowed: Bool = true) {
        self.profileLevelID = profileLevelID
        self.packetizationMode = packetizationMode
        self.levelAsymmetryAllowed = levelAsymmetryAllowed
    }

    /// Reads the parameters; nil when profile-level-id or packetization-mode is malformed.
    public init?(_ parameters: [FormatParameter]) {
        var profileLevelID = H264ProfileLevelID.absentDefault
        if let text = parameters.value(for: "profile-level-id") {
            guard let parsed = H264ProfileLevelID(text) else { return nil }
            profileLevelID = parsed
        }
        var mode = 0
        if let text = parameters.value(for: "packetization-mode") {
            guard let parsed = SDPText.decimal(text, as: UInt8.self), parsed <= 2 else { return nil }
            mode = Int(parsed)
        }
        let asymmetry = parameters.value(for: "level-asymmetry-allowed") == "1"
        self.init(profileLevelID: profileLevelID, packetizationMode: mode, levelAsymmetryAllowed: asymmetry)
    }

    /// The fmtp parameters in the order libwebrtc writes them.
    public var formatParameters: [FormatParameter] {
        [
            FormatParameter("level-asymmetry-allowed", levelAsymmetryAllowed ? "1" : "0"),
            FormatParameter("packetization-mode", String(packetizationMode)),
            FormatParameter("profile-level-id", profileLevelID.hexString),
        ]
    }
}
