import Synchronization

/// Where verifiers read the current ``TokenKeys``: the fixed keys (secret, JWKS file) and
/// those last fetched from the JWKS URL, merged once per change. A read takes a lock for
/// the time of a copy; no await, no actor hop on the request path.
public final class TokenKeyStore: Sendable {
    private struct State {
        var fixed: TokenKeys
        var fetched: [String: VerificationKey] = [:]
        var merged: TokenKeys
        /// Bumped on every change, so cached verifications made with an older set are dropped.
        var generation: UInt64 = 0
        /// An unknown `kid` was seen: the refresher should fetch before its next tick.
        var wantsRefresh = false
    }

    private let state: Mutex<State>

    public init(fixed: TokenKeys) {
        state = Mutex(State(fixed: fixed, merged: fixed))
    }

    /// The keys now, and the generation they belong to.
    public var current: (keys: TokenKeys, generation: UInt64) {
        state.withLock { ($0.merged, $0.generation) }
    }

    /// Replaces the keys fetched from the JWKS URL (a `kid` in both: the fixed key wins).
    public func replaceFetched(_ keys: [String: VerificationKey]) {
        state.withLock { s in
            s.fetched = keys
            var merged = s.fixed
            merged.byKeyID.merge(keys) { fixed, _ in fixed }
            s.merged = merged
            s.generation &+= 1
        }
    }

    /// The kids fetched from the URL now.
    public var fetchedKeyIDs: [String] { state.withLock { $0.fetched.keys.sorted() } }

    func noteUnknownKeyID() { state.withLock { $0.wantsRefresh = true } }

    /// Whether an unknown `kid` asked for a fetch since the last call (and clears it).
    func takeRefreshWish() -> Bool {
        state.withLock { s in
            defer { s.wantsRefresh = false }
            return s.wantsRefresh
        }
    }
}
