/// The relative URIs of one presentation's resources (RFC 8216bis §4.2: URIs in a
/// playlist resolve against the playlist's own URI), and their parsing back from a
/// request path.
///
/// Partial Segments are numbered across the whole stream ("part57.m4s") rather than
/// within their parent ("seg9.p3.m4s"): the EXT-X-PRELOAD-HINT names the next part
/// before the packager knows whether an IDR will start a new segment with it, and a
/// stream-wide number makes that hint always come true (§6.2.6 allows withdrawing a hint,
/// but every withdrawal costs the client a 404 and a playlist round trip).
public struct HLSResourceNames: Sendable, Equatable {
    public var multivariantPlaylist: String
    public var mediaPlaylist: String
    public var initializationSegment: String
    public var segmentPrefix: String
    public var partPrefix: String
    public var mediaSuffix: String

    public init(multivariantPlaylist: String = "index.m3u8", mediaPlaylist: String = "media.m3u8",
                initializationSegment: String = "init.mp4", segmentPrefix: String = "seg",
                partPrefix: String = "part", mediaSuffix: String = ".m4s") {
        self.multivariantPlaylist = multivariantPlaylist
        self.mediaPlaylist = mediaPlaylist
        self.initializationSegment = initializationSegment
        self.segmentPrefix = segmentPrefix
        self.partPrefix = partPrefix
        self.mediaSuffix = mediaSuffix
    }

    public func segment(_ mediaSequence: Int) -> String { segmentPrefix + String(mediaSequence) + mediaSuffix }
    public func part(_ number: Int) -> String { partPrefix + String(number) + mediaSuffix }

    /// What a request's last path component names, or nil. Numbers are plain decimal
    /// digits (at most 18, so they fit an `Int`); anything else is not ours.
    public func resource(named name: Substring) -> HLSResource? {
        if name == multivariantPlaylist { return .multivariantPlaylist }
        if name == mediaPlaylist { return .mediaPlaylist }
        if name == initializationSegment { return .initializationSegment }
        if let number = Self.number(in: name, prefix: partPrefix, suffix: mediaSuffix) { return .part(number) }
        if let number = Self.number(in: name, prefix: segmentPrefix, suffix: mediaSuffix) { return .segment(number) }
        return nil
    }

    public func resource(named name: String) -> HLSResource? { resource(named: name[...]) }

    private static func number(in name: Substring, prefix: String, suffix: String) -> Int? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }
}

/// A resource of an LL-HLS presentation.
public enum HLSResource: Hashable, Sendable {
    case multivariantPlaylist
    case mediaPlaylist
    case initializationSegment
    case segment(Int)
    case part(Int)

    /// RFC 8216bis §4 (playlists) and RFC 4337 / ISO/IEC 14496-12 (MP4): the
    /// Content-Type to serve the resource with.
    public var contentType: String {
        switch self {
        case .multivariantPlaylist, .mediaPlaylist: return "application/vnd.apple.mpegurl"
        case .initializationSegment, .segment, .part: return "video/mp4"
        }
    }
}
