import OnAirWire

/// What the packager muxes: an H.264 track, an AAC track, or both (in one fMP4 stream).
public struct HLSTrackConfiguration: Sendable, Equatable {
    public let video: AVCSampleEntry?
    public let audio: AudioSpecificConfig?

    /// At least one track; AAC must be a 1024-sample-frame object type at a known rate.
    public init(video: AVCSampleEntry?, audio: AudioSpecificConfig?) throws(WireError) {
        guard video != nil || audio != nil else { throw .invalid("HLS packager needs a video or an audio track") }
        if let audio {
            guard audio.sampleRate > 0, audio.sampleRate <= 96000 else {
                throw .invalid("AAC sampling rate \(audio.sampleRate)")
            }
            guard (1...7).contains(audio.channelConfiguration) else {
                throw .invalid("AAC channelConfiguration \(audio.channelConfiguration)")
            }
        }
        self.video = video
        self.audio = audio
    }

    /// 90 kHz for video (RFC 6184 §5.1), the sampling rate for AAC.
    public static let videoTimescale: Int64 = 90_000
    /// ISO/IEC 14496-3 §4.5.1.1: an AAC-LC raw_data_block decodes to 1024 samples.
    public static let aacFrameSamples: Int64 = 1024

    public var videoTrackID: UInt32 { 1 }
    var audioTrackID: UInt32 { video == nil ? 1 : 2 }

    /// RFC 6381 codecs list for EXT-X-STREAM-INF CODECS.
    public var codecs: String {
        [video?.codecString, audio?.codecString].compactMap { $0 }.joined(separator: ",")
    }

    /// The EXT-X-MAP resource.
    public func initializationSegment() -> InitializationSegment {
        var tracks: [TrackBox] = []
        if let video {
            tracks.append(TrackBox(trackID: videoTrackID, timescale: UInt32(Self.videoTimescale), media: .video(video)))
        }
        if let audio {
            tracks.append(TrackBox(trackID: audioTrackID, timescale: UInt32(audio.sampleRate),
                                   media: .audio(MP4AudioSampleEntry(config: audio))))
        }
        return InitializationSegment(tracks: tracks)
    }
}
