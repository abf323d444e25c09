import Foundation

/// What a token lets its holder do: the strings of the `grants` claim (an array of strings).
/// Names this server does not know are ignored, so that a backend can mint tokens for a newer
/// release; a missing grant is refused with the token's grants named (403).
public enum Grant: String, Sendable, Hashable, CaseIterable, Codable {
    /// WHIP: publish to the token's room (and PATCH/DELETE that session).
    case publish
    /// WHEP: watch the token's room (and PATCH/DELETE that session, cap its layer).
    case view
    /// Join the token's chat room and post as `sub`.
    case chat
    /// Moderate the token's chat room.
    case moderate
    /// The management API (kick, webhooks, events), whatever the room.
    case admin

    /// `view,chat` as written on a command line.
    public static func parseList(_ text: String) throws(UnknownGrant) -> [Grant] {
        var grants: [Grant] = []
        for word in text.split(separator: ",") {
            let name = word.trimmingCharacters(in: .whitespaces)
            guard let grant = Grant(rawValue: name) else { throw UnknownGrant(name: name) }
            if !grants.contains(grant) { grants.append(grant) }
        }
        return grants
    }

    /// A grant name that is none of ``Grant``'s cases.
    public struct UnknownGrant: Error, CustomStringConvertible {
        public let name: String
        public var description: String {
            "unknown grant '\(name)' (one of \(Grant.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
    }
}
