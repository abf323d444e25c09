/// RFC 8216bis §4.4.6 Multivariant Playlist: one Variant Stream per rendition (a single
/// publisher layer gives one; a simulcast publisher one per layer). Audio is muxed into
/// every variant's segments, so there is no EXT-X-MEDIA group to list.
public struct MultivariantPlaylist: Sendable, Equatable {
    /// In the order written: §6.3.1 lets a client start with the first, so the best goes first.
    public var variants: [VariantStream]

    public init(variants: [VariantStream]) { self.variants = variants }

    public func render() -> String {
        (["#EXTM3U", "#EXT-X-INDEPENDENT-SEGMENTS"] + variants.flatMap(\.lines)).joined(separator: "\n") + "\n"
    }
}
