/// RFC 8866 §5.14 `<media>` field of an m= line.
public enum MediaKind: Sendable, Equatable, Hashable, CustomStringConvertible {
    case audio
    case video
    /// Data channels (`m=application ... UDP/DTLS/SCTP webrtc-datachannel`).
    case application
    /// Any other registered or future media type ("text", "message", ...), kept as written.
    case other(String)

    public init(_ text: String) {
        switch text {
        case "audio": self = .audio
        case "video": self = .video
        case "application": self = .application
        default: self = .other(text)
        }
    }

    public var rawValue: String {
        switch self {
        case .audio: return "audio"
        case .video: return "video"
        case .application: return "application"
        case .other(let text): return text
        }
    }

    public var description: String { rawValue }
}
