extension Duration {
    /// The duration in seconds as a floating point value.
    public var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }

    /// Whole nanoseconds, truncated toward zero (a ``MonoTime`` difference is whole
    /// nanoseconds already): for integer math on a span. Traps beyond about ±292 years.
    public var nanoseconds: Int64 {
        let (s, atto) = components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }

    /// The duration in milliseconds as a floating point value: ``nanoseconds`` / 1e6,
    /// rounded once, so whole microseconds give exactly `µs / 1e3`.
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
}
