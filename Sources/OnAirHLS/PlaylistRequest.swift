/// The Delivery Directives of a Media Playlist request (RFC 8216bis §6.2.5): `_HLS_msn`,
/// `_HLS_part` and `_HLS_skip`, read from untrusted query values.
public struct PlaylistRequest: Equatable, Sendable {
    public var mediaSequence: Int?
    public var part: Int?
    /// `_HLS_skip=YES` or `v2` (§6.2.5.1); other values are ignored.
    public var deltaUpdate: Bool
    /// Why a directive could not be read (a 400 unless the playlist has ended).
    public var malformed: String?

    public init(mediaSequence: Int? = nil, part: Int? = nil, deltaUpdate: Bool = false) {
        self.mediaSequence = mediaSequence
        self.part = part
        self.deltaUpdate = deltaUpdate
        self.malformed = nil
    }

    /// Parses raw query values (nil when the parameter is absent). `_HLS_msn` and
    /// `_HLS_part` are decimal-integers (§4.2: digits only, no sign).
    public init(msn: String?, part: String?, skip: String?) {
        self.init(deltaUpdate: skip == "YES" || skip == "v2")
        if let msn {
            guard let value = Self.decimalInteger(msn) else {
                malformed = "_HLS_msn is not a decimal-integer"
                return
            }
            mediaSequence = value
        }
        if let part {
            guard let value = Self.decimalInteger(part) else {
                malformed = "_HLS_part is not a decimal-integer"
                return
            }
            self.part = value
        }
    }

    /// A run of 1-18 ASCII digits (18 keeps any value inside `Int`).
    static func decimalInteger(_ text: String) -> Int? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
