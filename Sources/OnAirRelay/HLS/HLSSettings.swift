import OnAirDecoding
/// LL-HLS packaging settings of the relay: the `hls:` section of `relay.yaml`
/// (config/relay.yaml documents each key; `ONAIR_HLS_*` variables override them).
public struct HLSSettings: Sendable, Equatable {
    /// Package every live room as LL-HLS.
    public var enabled = true
    /// EXT-X-PART-INF PART-TARGET (RFC 8216bis §4.4.3.7). Just over a third of a second:
    /// ten frames at 30 fps (twenty at 60) fill a part exactly, so a 2 s GOP is six whole
    /// parts. With 0.333 s a part holds nine frames and the last part of every segment
    /// (six frames) can only be closed when the next frame, the IDR, arrives: a frame
    /// interval later than the others (§4.4.4.9 forbids closing a non-final part that short
    /// on a guess).
    public var partTarget: Duration = .microseconds(333_340)
    /// Segments are cut at the first IDR after this long.
    public var segmentTarget: Duration = .seconds(2)
    /// How much the media playlist lists (DVR window).
    public var window: Duration = .seconds(30)
    /// How long a finished stream's presentation (with EXT-X-ENDLIST) stays servable.
    public var keepAfterEnd: Duration = .seconds(60)
    /// When set, every live stream is also recorded to a fragmented MP4 file in this
    /// directory (``StreamRecorder``); nil records nothing.
    public var recordDirectory: String? = nil
    /// Bytes a recording may have queued for the disk. Above this the recorder drops
    /// fragments (until the next independent one) instead of ever holding up the LL-HLS loop.
    public var recordQueueBytes = 64 * 1024 * 1024

    public init() {}

    /// The problems with these settings, worded for the person editing relay.yaml.
    public func problems() -> [String] {
        var problems: [String] = []
        if !(partTarget >= .milliseconds(100)) { problems.append("hls.part_target_seconds must be at least 0.1") }
        if !(partTarget <= segmentTarget) { problems.append("hls.part_target_seconds must not exceed hls.segment_target_seconds") }
        if !(segmentTarget <= .seconds(60)) { problems.append("hls.segment_target_seconds must be at most 60") }
        if !(window > .zero) { problems.append("hls.window_seconds must be > 0") }
        if !(keepAfterEnd >= .zero) { problems.append("hls.keep_after_end_seconds must be >= 0") }
        if recordDirectory?.isEmpty == true { problems.append("hls.record_directory must name a directory (leave it out to record nothing)") }
        if !(recordQueueBytes >= 1024 * 1024) { problems.append("hls.record_queue_bytes must be at least 1048576") }
        return problems
    }
}

extension HLSSettings: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, partTarget = "part_target_seconds", segmentTarget = "segment_target_seconds"
        case window = "window_seconds", keepAfterEnd = "keep_after_end_seconds"
        case recordDirectory = "record_directory", recordQueueBytes = "record_queue_bytes"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
        enabled = try c.value(.enabled, default: enabled)
        partTarget = try Self.duration(c, .partTarget) ?? partTarget
        segmentTarget = try Self.duration(c, .segmentTarget) ?? segmentTarget
        window = try Self.duration(c, .window) ?? window
        keepAfterEnd = try Self.duration(c, .keepAfterEnd) ?? keepAfterEnd
        recordDirectory = try c.value(.recordDirectory, default: recordDirectory)
        recordQueueBytes = try c.value(.recordQueueBytes, default: recordQueueBytes)
    }

    /// Seconds (a YAML number) as a Duration; refuses what no Duration can hold.
    private static func duration(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Duration? {
        guard let seconds = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard let duration = Duration(configSeconds: seconds) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(seconds) is not a number of seconds")
        }
        return duration
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(enabled, forKey: .enabled)
        try c.encode(partTarget.seconds, forKey: .partTarget)
        try c.encode(segmentTarget.seconds, forKey: .segmentTarget)
        try c.encode(window.seconds, forKey: .window)
        try c.encode(keepAfterEnd.seconds, forKey: .keepAfterEnd)
        try c.encodeIfPresent(recordDirectory, forKey: .recordDirectory)
        try c.encode(recordQueueBytes, forKey: .recordQueueBytes)
    }
}

extension Duration {
    /// A duration from seconds read from a config file or the environment; nil for NaN,
    /// infinities and magnitudes no one means (Duration.seconds would trap on some of them).
    init?(configSeconds seconds: Double) {
        guard seconds.isFinite, abs(seconds) <= 1e9 else { return nil }
        self = .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
