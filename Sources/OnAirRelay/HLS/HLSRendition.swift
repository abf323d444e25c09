import NIOCore
import OnAirHLS
import OnAirWire
import OnAirPayload

/// One video rendition of a stream's LL-HLS presentation: one publisher layer, packaged as
/// received (no transcoding), with the stream's AAC muxed in. A simulcast publisher gives one
/// per layer, named by its rid (RFC 8851); any other publisher gives one, named as always.
final class HLSRendition {
    /// The rid of the layer it packages; nil for the single rendition of a non-simulcast stream.
    let rid: String?
    let names: HLSResourceNames
    /// The publisher's layer (``PublisherSession/videoLayers`` index) once its first packet came.
    var layer: Int?
    var timeline = TrackTimeline(clockRate: 90_000)
    var depacketizer = H264Depacketizer()
    /// Units the depacketizer completed during one `receive`, handled after it returns:
    /// handling reads the depacketizer (its SPS/PPS), which must not overlap its mutation.
    var completedUnits: [H264AccessUnit] = []
    var packager: LLHLSPackager?
    /// Arrival of the datagram that completed the previous video access unit.
    var previousUnitArrival: MonoTime?
    /// When this rendition last asked for a keyframe to start packaging from.
    var lastStartRequest: MonoTime?
    /// The rendered media playlist (full, and delta update) for one presentation revision:
    /// many blocking requests released by the same part get the same text.
    var renderedPlaylists: (revision: UInt64, full: ByteBuffer?, delta: ByteBuffer?) = (.max, nil, nil)

    init(rid: String?) {
        self.rid = rid
        names = rid.map(Self.names(rid:)) ?? HLSResourceNames()
    }

    /// "media-f.m3u8", "init-f.mp4", "seg-f-3.m4s", "part-f-57.m4s": one directory for the
    /// whole presentation, and no name of one rendition parses as another's.
    static func names(rid: String) -> HLSResourceNames {
        HLSResourceNames(mediaPlaylist: "media-\(rid).m3u8", initializationSegment: "init-\(rid).mp4",
                         segmentPrefix: "seg-\(rid)-", partPrefix: "part-\(rid)-")
    }

    /// A rid usable in a file name: RFC 8851 §10 allows letters, digits, '-' and '_'; a
    /// longer or stranger one is not packaged.
    static func isUsable(rid: String) -> Bool {
        !rid.isEmpty && rid.utf8.count <= 16 && rid.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    /// Picture area, to list the best first.
    var pixels: Int {
        packager?.tracks.video.map { Int($0.width) * Int($0.height) } ?? 0
    }
}
