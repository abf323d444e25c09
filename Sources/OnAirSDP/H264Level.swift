/// H.264 Annex A levels. Ordered by capability, with 1b between 1 and 1.1.
public enum H264Level: Int, Sendable, Equatable, Comparable, CaseIterable, CustomStringConvertible {
    case level1 = 10
    case level1b = 0
    case level1_1 = 11
    case level1_2 = 12
    case level1_3 = 13
    case level2 = 20
    case level2_1 = 21
    case level2_2 = 22
    case level3 = 30
    case level3_1 = 31
    case level3_2 = 32
    case level4 = 40
    case level4_1 = 41
    case level4_2 = 42
    case level5 = 50
    case level5_1 = 51
    case level5_2 = 52
    case level6 = 60
    case level6_1 = 61
    case level6_2 = 62

    /// The level_idc value for every level but 1b, whose spelling depends on the profile.
    public init?(levelIDC: UInt8) {
        guard levelIDC != 0, let level = H264Level(rawValue: Int(levelIDC)) else { return nil }
        self = level
    }

    /// Orders levels by capability: level_idc × 10, with 1b (no level_idc of its own) at 10.5.
    private var rank: Int {
        self == .level1b ? 105 : rawValue * 10
    }

    public static func < (lhs: H264Level, rhs: H264Level) -> Bool {
        lhs.rank < rhs.rank
    }

    public var description: String {
        switch self {
        case .level1b: return "1b"
        default: return rawValue % 10 == 0 ? "\(rawValue / 10)" : "\(rawValue / 10).\(rawValue % 10)"
        }
    }
}
