import OnAirSDP
import Testing

@Suite("H.264 profile-level-id (RFC 6184 §8.1, §8.2.2)")
struct H264ProfileLevelIDTests {
    /// RFC 6184 Table 5 rows (and Constrained High), each with a level.
    static let classification: [(String, H264Profile?, H264Level?)] = [
        ("42e01f", .constrainedBaseline, .level3_1),   // Chromium, aiortc, our default
        ("42c01f", .constrainedBaseline, .level3_1),   // constraint_set0 + set1
        ("424015", .constrainedBaseline, .level2_1),   // constraint_set1 alone
        ("4de01f", .constrainedBaseline, .level3_1),   // Main with constraint_set0 (x1xx... -> 1xxx0000)
        ("58c01f", .constrainedBaseline, .level3_1),   // Extended with set0 + set1
        ("42001f", .baseline, .level3_1),
        ("42801e", .baseline, .level3),                // set0 only is still Baseline (x0xx0000)
        ("58801f", .baseline, .level3_1),              // Extended with set0 (10xx0000)
        ("4d001f", .main, .level3_1),
        ("4d4028", .main, .level4),                    // set1 allowed for Main (0x0x0000)
        ("58001f", .extended, .level3_1),
        ("640c1f", .constrainedHigh, .level3_1),
        ("64001f", .high, .level3_1),
        ("640034", .high, .level5_2),
        ("6e0028", .high10, .level4),
        ("7a0028", .high422, .level4),
        ("f4001f", .high444, .level3_1),
        ("6e1028", .high10Intra, .level4),
        ("2c101f", .cavlc444Intra, .level3_1),
        ("4d2000", nil, nil),                           // set2 without set0: not in the table; level_idc 0
        ("64081f", nil, .level3_1),                     // High with constraint_set4 alone
        ("42e000", .constrainedBaseline, nil),
        ("42e0ff", .constrainedBaseline, nil),
    ]

    @Test("profile and level", arguments: classification.indices)
    func classify(index: Int) throws {
        let (text, profile, level) = Self.classification[index]
        let id = try #require(H264ProfileLevelID(text))
        #expect(id.profile == profile)
        #expect(id.level == level)
        #expect(id.hexString == text)
    }

    @Test func level1b() throws {
        // Baseline/Main/Extended: level_idc 11 with constraint_set3 (H.264 A.3.1).
        #expect(H264ProfileLevelID("42f00b")?.level == .level1b)
        #expect(H264ProfileLevelID("42f00b")?.profile == .constrainedBaseline)
        #expect(H264ProfileLevelID("42100b")?.level == .level1b)
        #expect(H264ProfileLevelID("42100b")?.profile == .baseline)
        #expect(H264ProfileLevelID("4d100b")?.level == .level1b)
        #expect(H264ProfileLevelID("42e00b")?.level == .level1_1)
        // High profiles use level_idc 9 (A.3.2); constraint_set3 there does not mean 1b.
        #expect(H264ProfileLevelID("640009")?.level == .level1b)
        #expect(H264ProfileLevelID("6e100b")?.level == .level1_1)
        // Ordering: 1 < 1b < 1.1.
        #expect(H264Level.level1 < .level1b && H264Level.level1b < .level1_1 && H264Level.level3_1 < .level4)
        #expect(H264Level.allCases.sorted() == H264Level.allCases)
        #expect(H264Level.level1b.description == "1b" && H264Level.level3_1.description == "3.1" && H264Level.level4.description == "4")
    }

    @Test func canonicalSpellings() {
        #expect(H264ProfileLevelID(profile: .constrainedBaseline, level: .level3_1).hexString == "42e01f")
        #expect(H264ProfileLevelID(profile: .baseline, level: .level3_1).hexString == "42001f")
        #expect(H264ProfileLevelID(profile: .main, level: .level1b).hexString == "4d100b")
        #expect(H264ProfileLevelID(profile: .constrainedBaseline, level: .level1b).hexString == "42f00b")
        #expect(H264ProfileLevelID(profile: .constrainedHigh, level: .level4).hexString == "640c28")
        #expect(H264ProfileLevelID(profile: .high, level: .level1b).hexString == "640009")
        #expect(H264ProfileLevelID("42f00b")?.withLevel(.level3).hexString == "42e01e")
        for profile in H264Profile.allCases {
            for level in [H264Level.level1b, .level1, .level3_1, .level5_2] {
                let id = H264ProfileLevelID(profile: profile, level: level)
                #expect(id.profile == profile && id.level == level, "\(profile) \(level) -> \(id.hexString)")
            }
        }
    }

    @Test func profilesCompareByProfileNotString() throws {
        let cb1 = try #require(H264ProfileLevelID("42e01f")), cb2 = try #require(H264ProfileLevelID("42c02a"))
        let baseline = try #require(H264ProfileLevelID("42001f")), main = try #require(H264ProfileLevelID("4d001f"))
        let constrainedHigh = try #require(H264ProfileLevelID("640c1f")), high = try #require(H264ProfileLevelID("64001f"))
        #expect(cb1.isSameProfile(as: cb2) && cb1 != cb2)
        #expect(cb1.isSameProfile(as: try #require(H264ProfileLevelID("4de01f"))))
        #expect(!cb1.isSameProfile(as: baseline))
        #expect(!baseline.isSameProfile(as: main))
        #expect(!main.isSameProfile(as: constrainedHigh))
        #expect(!constrainedHigh.isSameProfile(as: high))
        #expect(!(try #require(H264ProfileLevelID("4d2000"))).isSameProfile(as: try #require(H264ProfileLevelID("4d2000"))))
    }

    @Test func malformedText() {
        for text in ["", "42e01", "42e01f0", "42e01g", "4 e01f", "-42e01", "０42e01"] {
            #expect(H264ProfileLevelID(text) == nil, "\(text)")
        }
        #expect(H264ProfileLevelID("42E01F")?.hexString == "42e01f")
    }

    @Test("RFC 6184 §8.2.2 answer level")
    func answerRules() throws {
        let offered31 = try #require(H264ProfileLevelID("42e01f")), local4 = try #require(H264ProfileLevelID("42e028"))
        // Both allow asymmetry: each side keeps its own level; the answer says ours.
        #expect(H264ProfileLevelID.answer(offered: offered31, offeredLevelAsymmetryAllowed: true,
                                          local: local4, localLevelAsymmetryAllowed: true)?.hexString == "42e028")
        // Either side symmetric: the lower level for both directions.
        #expect(H264ProfileLevelID.answer(offered: offered31, offeredLevelAsymmetryAllowed: false,
                                          local: local4, localLevelAsymmetryAllowed: true)?.hexString == "42e01f")
        #expect(H264ProfileLevelID.answer(offered: local4, offeredLevelAsymmetryAllowed: true,
                                          local: offered31, localLevelAsymmetryAllowed: false)?.hexString == "42e01f")
        // The answer keeps the offer's spelling of the profile.
        #expect(H264ProfileLevelID.answer(offered: try #require(H264ProfileLevelID("42c028")), offeredLevelAsymmetryAllowed: false,
                                          local: offered31, localLevelAsymmetryAllowed: false)?.hexString == "42c01f")
        // Level 1b is lower than 1.1 and is written in the profile's way.
        #expect(H264ProfileLevelID.answer(offered: try #require(H264ProfileLevelID("42e00b")), offeredLevelAsymmetryAllowed: false,
                                          local: try #require(H264ProfileLevelID("42f00b")), localLevelAsymmetryAllowed: false)?.hexString == "42f00b")
        // Different profiles cannot be answered.
        #expect(H264ProfileLevelID.answer(offered: try #require(H264ProfileLevelID("640c1f")), offeredLevelAsymmetryAllowed: true,
                                          local: offered31, localLevelAsymmetryAllowed: true) == nil)
    }

    @Test func formatParameterDefaults() throws {
        let absent = try #require(H264FormatParameters([]))
        #expect(absent.profileLevelID.hexString == "42000a")
        #expect(absent.profileLevelID.profile == .baseline && absent.profileLevelID.level == .level1)
        #expect(absent.packetizationMode == 0 && !absent.levelAsymmetryAllowed)
        let chromium = try #require(H264FormatParameters(try FormatParameters(attributeValue:
            "108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f").parameters))
        #expect(chromium.packetizationMode == 1 && chromium.levelAsymmetryAllowed)
        #expect(chromium.formatParameters.formatParameterText == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(H264FormatParameters([FormatParameter("profile-level-id", "xyz")]) == nil)
        #expect(H264FormatParameters([FormatParameter("packetization-mode", "3")]) == nil)
    }
}
