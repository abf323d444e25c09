// OnAirRateControl: the publisher's congestion control and link quality, pure.
//
// Inputs are parsed RTCP (OnAirRTP): receiver report blocks (RFC 3550 §6.4), REMB
// (draft-alvestrand-rmcat-remb-03) and transport-wide feedback
// (draft-holmer-rmcat-transport-wide-cc-extensions-01). The output is a target bitrate for
// the video encoder (draft-ietf-rmcat-gcc-02 loss- and delay-based control) and a 1-5 link
// quality score.
//
// Time: there is no clock in this module. Every call that needs the time takes
// `now: MonoTime` from the caller (``MonoTime/now()``, or a manual clock in tests); only
// differences between values matter. Every span (a configuration interval, a round trip,
// jitter) is a `Duration`. The exceptions come in from the wire: the wall-clock NTP times
// of RTCP round-trip measurement, and the receiver's arrival times in transport-cc
// feedback, which are on the receiver's clock and so are kept as a `Duration` since that
// clock's zero (see ``DelayBasedEstimator/packet(sendTime:arrivalTime:)``). Where the math
// needs plain numbers (the trendline in ms, rates in bit/s) a span is converted locally.
