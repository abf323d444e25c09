import Glibc

/// The process's limit on open descriptors (RLIMIT_NOFILE). Every ICE-TCP connection takes
/// one, up to `media.tcp_max_connections` per worker; the soft limit a shell gives (often
/// 1,024) would refuse connections long before that, so the relay raises it to the hard limit,
/// as servers that hold many connections do.
enum OpenFileLimit {
    /// Raises the soft limit to the hard one; returns the soft limit in force afterwards.
    @discardableResult
    static func raiseToHardLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
