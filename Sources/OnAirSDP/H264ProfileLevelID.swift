import OnAirWire

/// RFC 6184 §8.1 `profile-level-id`: three bytes as six hex digits — profile_idc, profile-iop
/// (constraint_set0..5 flags, most significant first, then two reserved zero bits) and level_idc.
///
/// Equality compares the bytes; compare profiles with `profile` / `isSameProfile(as:)`, since
/// 42e01f and 42c01f (both Constrained Baseline) are the same profile.
public struct H264ProfileLevelID: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var profileIDC: UInt8
    public var profileIOP: UInt8
    public var levelIDC: UInt8

    public init(profileIDC: UInt8, profileIOP: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.profileIOP = profileIOP
        self.levelIDC = levelIDC
    }

    /// Parses exactly six hex digits (either case).
    public init?(_ text: String) {
        guard text.utf8.count == 6, text.utf8.allSatisfy(Self.isHexDigit), let bytes = Hex.decode(text),
              bytes.count == 3 else { return nil }
        self.init(profileIDC: bytes[0], profileIOP: bytes[1], levelIDC: bytes[2])
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// The canonical spelling of a profile at a level (42e01f for Constrained Baseline 3.1).
    public init(profile: H264Profile, level: H264Level) {
        let (idc, iop) = profile.canonicalBytes
        self.init(profileIDC: idc, profileIOP: iop, levelIDC: 0)
        self = self.withLevel(level)
    }

    /// RFC 6184 §8.1: "If the profile-level-id parameter is not present, the Baseline profile,
    /// without additional constraints at Level 1, MUST be inferred" — 42000a.
    public static let absentDefault = H264ProfileLevelID(profileIDC: 0x42, profileIOP: 0x00, levelIDC: 0x0A)

    /// RFC 6184 Table 5 classification; nil for combinations the table does not name.
    public var profile: H264Profile? {
        H264Profile(profileIDC: profileIDC, profileIOP: profileIOP)
    }

    /// constraint_set3_flag: with level_idc 11 in Baseline/Main/Extended it signals level 1b.
    private static let constraintSet3: UInt8 = 0x10

    /// The level; level 1b is level_idc 11 with constraint_set3 in Baseline, Main and Extended
    /// (H.264 §A.3.1) and level_idc 9 in the High profiles (H.264 §A.3.2).
    public var level: H264Level? {
        if levelIDC == 9 { return .level1b }
        if levelIDC == 11, profileIOP & Self.constraintSet3 != 0,
           H264Profile.usesConstraintSet3ForLevel1b(profileIDC: profileIDC) {
            return .level1b
        }
        return H264Level(levelIDC: levelIDC)
    }

    /// The same profile bytes at another level, spelling 1b the way the profile requires.
    public func withLevel(_ level: H264Level) -> H264ProfileLevelID {
        var copy = self
        let oldLevelIs1b = self.level == .level1b
        let set3Means1b = H264Profile.usesConstraintSet3ForLevel1b(profileIDC: profileIDC)
        if level == .level1b {
            if set3Means1b {
                copy.profileIOP |= Self.constraintSet3
                copy.levelIDC = 11
            } else {
                copy.levelIDC = 9
            }
        } else {
            if oldLevelIs1b && set3Means1b { copy.profileIOP &= ~Self.constraintSet3 }
            copy.levelIDC = UInt8(level.rawValue)
        }
        return copy
    }

    /// True when both name the same known profile (RFC 6184 §8.2.2 negotiates per profile).
    public func isSameProfile(as other: H264ProfileLevelID) -> Bool {
        guard let profile else { return false }
        return profile == other.profile
    }

    /// Six lower-case hex digits.
    public var hexString: String {
        Hex.encode([profileIDC, profileIOP, levelIDC])
    }

    public var description: String {
        let profileText = profile?.rawValue ?? "unknown profile"
        let levelText = level.map { "level \($0)" } ?? "unknown level"
        return "\(hexString) (\(profileText), \(levelText))"
    }

    /// RFC 6184 §8.2.2 offer/answer for one payload type whose profiles are equal: the
    /// answer keeps the profile; if both sides set level-asymmetry-allowed=1 each side may use
    /// its own level, so the answer carries the answerer's (`local`) level; otherwise both
    /// directions use the lower of the two levels.
    ///
    /// Returns nil when the profiles differ or a level is unknown (then this payload type
    /// cannot be answered).
    public static func answer(offered: H264ProfileLevelID, offeredLevelAsymmetryAllowed: Bool,
                              local: H264ProfileLevelID, localLevelAsymmetryAllowed: Bool) -> H264ProfileLevelID? {
        guard offered.isSameProfile(as: local), let offeredLevel = offered.level, let localLevel = local.level else {
            return nil
        }
        let level = offeredLevelAsymmetryAllowed && localLevelAsymmetryAllowed ? localLevel : min(offeredLevel, localLevel)
        return offered.withLevel(level)
    }
}
