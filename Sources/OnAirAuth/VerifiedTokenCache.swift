import Synchronization
import OnAirTokenFormat

/// Tokens verified lately, keyed by the token's bytes, each until its `exp`: a token seen
/// again (a reconnect, WHEP then the chat with one token, PATCH/DELETE of a session) costs a
/// lookup, not a signature check. Bounded: when full, expired entries go, then the older
/// half of the rest. Only verified tokens enter, so a stranger cannot fill it with noise.
final class VerifiedTokenCache: Sendable {
    private struct Entry {
        let claims: AccessClaims
        let generation: UInt64
        let sequence: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var sequence: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The claims of `token` if it was verified under key generation `generation`.
    func claims(for token: String, generation: UInt64) -> AccessClaims? {
        guard capacity > 0 else { return nil }
        return state.withLock { s in
            guard let entry = s.entries[token] else { return nil }
            guard entry.generation == generation else {
                s.entries[token] = nil
                return nil
            }
            return entry.claims
        }
    }

    func insert(_ token: String, claims: AccessClaims, generation: UInt64, now: Double) {
        guard capacity > 0 else { return }
        state.withLock { s in
            if s.entries.count >= capacity && s.entries[token] == nil {
                s.entries = s.entries.filter { $0.value.claims.expiresAt > now && $0.value.generation == generation }
                if s.entries.count >= capacity {
                    let cut = s.entries.values.map(\.sequence).sorted()[s.entries.count / 2]
                    s.entries = s.entries.filter { $0.value.sequence >= cut }
                }
            }
            s.sequence &+= 1
            s.entries[token] = Entry(claims: claims, generation: generation, sequence: s.sequence)
        }
    }

    func remove(_ token: String) { state.withLock { _ = $0.entries.removeValue(forKey: token) } }

    var count: Int { state.withLock { $0.entries.count } }
}
