import OnAirRTP
import OnAirWire

/// What one reception report (RFC 3550 §6.4.1) says about the path to a receiver, in
/// everyday units: for status lines, logs and ``LinkQualityScore``.
public struct LinkStatistics: Sendable, Hashable {
    /// Fraction of packets lost since the previous report, 0...1 (the 8-bit fixed point
    /// "fraction lost" field divided by 256).
    public var fractionLost: Double
    /// Packets lost since the start of reception (negative when duplicates outnumber
    /// losses, RFC 3550 §6.4.1).
    public var cumulativeLost: Int32
    /// Interarrival jitter (the field is in RTP timestamp units).
    public var jitter: Duration
    /// Round-trip time, when known (see ``RoundTripEstimator``).
    public var roundTripTime: Duration?

    public init(fractionLost: Double, cumulativeLost: Int32 = 0, jitter: Duration, roundTripTime: Duration?) {
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.jitter = jitter
        self.roundTripTime = roundTripTime
    }

    /// - Parameters:
    ///   - reportBlock: the block about one of our streams.
    ///   - clockRate: that stream's RTP clock rate (90000 for video, 48000 for Opus), which
    ///     gives the jitter field its unit.
    ///   - roundTripTime: e.g. ``RoundTripEstimator/smoothed``.
    public init(reportBlock: ReportBlock, clockRate: Int, roundTripTime: Duration?) {
        fractionLost = Double(reportBlock.fractionLost) / 256
        cumulativeLost = reportBlock.cumulativeLost
        jitter = clockRate > 0 ? .seconds(Int64(reportBlock.jitter)) / clockRate : .zero
        self.roundTripTime = roundTripTime
    }

    /// ``fractionLost`` in percent.
    public var lossPercent: Double { fractionLost * 100 }

    /// The 1-5 score of this link; an unknown round-trip time counts as zero.
    public var quality: LinkQualityScore {
        LinkQualityScore(lossPercent: lossPercent, jitter: jitter, roundTripTime: roundTripTime ?? .zero)
    }
}
