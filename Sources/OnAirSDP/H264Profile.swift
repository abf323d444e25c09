/// H.264 profiles as RFC 6184 §8.1 Table 5 names them, plus Constrained High (H.264 A.2.11:
/// profile_idc 100 with constraint_set4 and constraint_set5) which WebRTC stacks also signal.
public enum H264Profile: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case constrainedBaseline = "constrained baseline"
    case baseline
    case main
    case extended
    case constrainedHigh = "constrained high"
    case high
    case high10 = "high 10"
    case high422 = "high 4:2:2"
    case high444 = "high 4:4:4 predictive"
    case high10Intra = "high 10 intra"
    case high422Intra = "high 4:2:2 intra"
    case high444Intra = "high 4:4:4 intra"
    case cavlc444Intra = "cavlc 4:4:4 intra"

    public var description: String { rawValue }

    /// One row of RFC 6184 Table 5: a profile_idc and a profile-iop bit pattern, most
    /// significant bit (constraint_set0_flag) first, 'x' meaning either value.
    struct Pattern {
        let profileIDC: UInt8
        let mask: UInt8
        let bits: UInt8
        let profile: H264Profile

        init(_ profileIDC: UInt8, _ pattern: StaticString, _ profile: H264Profile) {
            var mask: UInt8 = 0, bits: UInt8 = 0
            pattern.withUTF8Buffer { buffer in
                for (index, char) in buffer.enumerated() where index < 8 && char != UInt8(ascii: "x") {
                    mask |= 0x80 >> UInt8(index)
                    if char == UInt8(ascii: "1") { bits |= 0x80 >> UInt8(index) }
                }
            }
            self.profileIDC = profileIDC
            self.mask = mask
            self.bits = bits
            self.profile = profile
        }

        func matches(profileIDC: UInt8, profileIOP: UInt8) -> Bool {
            profileIDC == self.profileIDC && profileIOP & mask == bits
        }
    }

    /// RFC 6184 §8.1 Table 5, in the order the table reads (first match wins), with Constrained
    /// High added after High.
    static let patterns: [Pattern] = [
        Pattern(0x42, "x1xx0000", .constrainedBaseline),
        Pattern(0x4D, "1xxx0000", .constrainedBaseline),
        Pattern(0x58, "11xx0000", .constrainedBaseline),
        Pattern(0x42, "x0xx0000", .baseline),
        Pattern(0x58, "10xx0000", .baseline),
        Pattern(0x4D, "0x0x0000", .main),
        Pattern(0x58, "00xx0000", .extended),
        Pattern(0x64, "00000000", .high),
        Pattern(0x64, "00001100", .constrainedHigh),
        Pattern(0x6E, "00000000", .high10),
        Pattern(0x7A, "00000000", .high422),
        Pattern(0xF4, "00000000", .high444),
        Pattern(0x6E, "00010000", .high10Intra),
        Pattern(0x7A, "00010000", .high422Intra),
        Pattern(0xF4, "00010000", .high444Intra),
        Pattern(0x2C, "00010000", .cavlc444Intra),
    ]

    /// Classifies profile_idc + profile-iop, or nil when Table 5 has no matching row.
    public init?(profileIDC: UInt8, profileIOP: UInt8) {
        guard let row = Self.patterns.first(where: { $0.matches(profileIDC: profileIDC, profileIOP: profileIOP) }) else {
            return nil
        }
        self = row.profile
    }

    /// The canonical profile_idc and profile-iop to write for this profile (the usual WebRTC
    /// spellings: 42e0, 4200, 4d00, 640c, 6400, ...).
    public var canonicalBytes: (profileIDC: UInt8, profileIOP: UInt8) {
        switch self {
        case .constrainedBaseline: return (0x42, 0xE0)
        case .baseline: return (0x42, 0x00)
        case .main: return (0x4D, 0x00)
        case .extended: return (0x58, 0x00)
        case .constrainedHigh: return (0x64, 0x0C)
        case .high: return (0x64, 0x00)
        case .high10: return (0x6E, 0x00)
        case .high422: return (0x7A, 0x00)
        case .high444: return (0xF4, 0x00)
        case .high10Intra: return (0x6E, 0x10)
        case .high422Intra: return (0x7A, 0x10)
        case .high444Intra: return (0xF4, 0x10)
        case .cavlc444Intra: return (0x2C, 0x10)
        }
    }

    /// True for the profile_idc values whose constraint_set3_flag with level_idc 11 means
    /// level 1b (H.264 §A.3.1 / §A.3.2, RFC 6184 §8.1): Baseline, Main, Extended.
    static func usesConstraintSet3ForLevel1b(profileIDC: UInt8) -> Bool {
        profileIDC == 0x42 || profileIDC == 0x4D || profileIDC == 0x58
    }
}
