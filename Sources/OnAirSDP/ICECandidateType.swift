/// RFC 8839 §5.1 `cand-type`: "host", "srflx", "prflx", "relay", or a future token kept as written.
public struct ICECandidateType: RawRepresentable, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let host = ICECandidateType(rawValue: "host")
    public static let serverReflexive = ICECandidateType(rawValue: "srflx")
    public static let peerReflexive = ICECandidateType(rawValue: "prflx")
    public static let relay = ICECandidateType(rawValue: "relay")

    public var description: String { rawValue }
}
