import Foundation
import Yams

/// `config/broadcast.yaml`: defaults for `broadcast start` (the command line overrides them).
/// YAML like the relay's and the chat's files; every key optional, unknown keys are an error
/// (a typo must not silently fall back to a default).
public struct BroadcastConfigFile: Sendable, Equatable {
    public var relay: String?
    public var token: String?
    public var size: String?
    public var fps: Int?
    public var videoBitrate: Int?
    public var minBitrate: Int?
    public var maxBitrate: Int?
    public var gop: Int?
    public var preset: String?
    public var vbvSeconds: Double?
    public var audioBitrate: Int?
    public var audio: Bool?
    public var reconnectAttempts: Int?
    public var logInterval: Double?
    public var simulcast: Bool?
    public var simulcastBitrates: [Int]?
    /// A `turn:`/`turns:` (or `stun:`) URI and its credential (RFC 9725 §4.6's link parameters).
    public var iceServer: String?
    public var iceUsername: String?
    public var iceCredential: String?
    /// CA certificates (PEM) for a `turns:` server's certificate, besides the system's.
    public var iceCAFile: String?
    public var relayOnly: Bool?

    public init() {}

    static let keys: Set<String> = ["relay", "token", "size", "fps", "video_bitrate", "min_bitrate", "max_bitrate", "gop",
                                    "preset", "vbv_seconds", "audio_bitrate", "audio", "reconnect_attempts", "log_interval",
                                    "simulcast", "simulcast_bitrates", "ice_server", "ice_username", "ice_credential",
                                    "ice_ca_file", "relay_only"]

    /// Reads `path`; a missing default file is fine, a missing named file is not.
    public static func load(path: String, required: Bool) throws(BroadcastError) -> BroadcastConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            if required { throw BroadcastError(.usage, "cannot read the config file \(path)") }
            return BroadcastConfigFile()
        }
        return try parse(String(decoding: data, as: UTF8.self), source: path)
    }

    public static func parse(_ text: String, source: String) throws(BroadcastError) -> BroadcastConfigFile {
        let loaded: Any?
        do {
            loaded = try Yams.load(yaml: text)
        } catch {
            throw BroadcastError(.usage, "\(source): not valid YAML: \(error)")
        }
        guard let loaded else { return BroadcastConfigFile() }
        guard let map = loaded as? [String: Any] else { throw BroadcastError(.usage, "\(source): expected a map of settings") }
        if let unknown = map.keys.sorted().first(where: { !keys.contains($0) }) {
            throw BroadcastError(.usage, "\(source): unknown key '\(unknown)' (known: \(keys.sorted().joined(separator: ", ")))")
        }
        var file = BroadcastConfigFile()
        file.relay = try string(map, "relay", source)
        file.token = try string(map, "token", source)
        file.size = try string(map, "size", source)
        file.fps = try integer(map, "fps", source)
        file.videoBitrate = try bitrate(map, "video_bitrate", source)
        file.minBitrate = try bitrate(map, "min_bitrate", source)
        file.maxBitrate = try bitrate(map, "max_bitrate", source)
        file.gop = try integer(map, "gop", source)
        file.preset = try string(map, "preset", source)
        file.vbvSeconds = try number(map, "vbv_seconds", source)
        file.audioBitrate = try bitrate(map, "audio_bitrate", source)
        if let value = map["audio"] {
            guard let flag = value as? Bool else { throw BroadcastError(.usage, "\(source): 'audio' must be true or false") }
            file.audio = flag
        }
        file.reconnectAttempts = try integer(map, "reconnect_attempts", source)
        file.logInterval = try number(map, "log_interval", source)
        if let value = map["simulcast"] {
            guard let flag = value as? Bool else { throw BroadcastError(.usage, "\(source): 'simulcast' must be true or false") }
            file.simulcast = flag
        }
        if let value = map["simulcast_bitrates"] {
            let items = value as? [Any] ?? []
            let bitrates = items.compactMap { item in (item as? Int).flatMap { $0 >= 1000 ? $0 : nil } ?? (item as? String).flatMap(BitrateText.parse) }
            guard !items.isEmpty, items.count <= 3, bitrates.count == items.count else {
                throw BroadcastError(.usage, "\(source): 'simulcast_bitrates' must list 1 to 3 bitrates like [600k, 150k] "
                                     + "(half size, quarter size, ...)")
            }
            file.simulcastBitrates = bitrates
        }
        file.iceServer = try string(map, "ice_server", source)
        file.iceUsername = try string(map, "ice_username", source)
        file.iceCredential = try string(map, "ice_credential", source)
        file.iceCAFile = try string(map, "ice_ca_file", source)
        if let value = map["relay_only"] {
            guard let flag = value as? Bool else { throw BroadcastError(.usage, "\(source): 'relay_only' must be true or false") }
            file.relayOnly = flag
        }
        return file
    }

    private static func string(_ map: [String: Any], _ key: String, _ source: String) throws(BroadcastError) -> String? {
        guard let value = map[key] else { return nil }
        if let text = value as? String { return text }
        if let number = value as? Int { return String(number) }
        throw BroadcastError(.usage, "\(source): '\(key)' must be text")
    }

    private static func integer(_ map: [String: Any], _ key: String, _ source: String) throws(BroadcastError) -> Int? {
        guard let value = map[key] else { return nil }
        guard let number = value as? Int else { throw BroadcastError(.usage, "\(source): '\(key)' must be a whole number") }
        return number
    }

    private static func number(_ map: [String: Any], _ key: String, _ source: String) throws(BroadcastError) -> Double? {
        guard let value = map[key] else { return nil }
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        throw BroadcastError(.usage, "\(source): '\(key)' must be a number")
    }

    private static func bitrate(_ map: [String: Any], _ key: String, _ source: String) throws(BroadcastError) -> Int? {
        guard let value = map[key] else { return nil }
        if let number = value as? Int, number >= 1000 { return number }
        if let text = value as? String, let bits = BitrateText.parse(text) { return bits }
        throw BroadcastError(.usage, "\(source): '\(key)' must be a bitrate like 2500k or 2.5M")
    }
}
