/// Codec rules shared by the negotiators: which payload formats are Opus (RFC 7587) and H.264
/// (RFC 6184), how the ingest side ranks them, and which feedback we keep.
enum CodecMatching {
    /// RFC 7587 §7: "opus/48000/2" regardless of the actual channel count.
    static func isOpus(_ format: PayloadFormat) -> Bool {
        guard let map = format.rtpMap else { return false }
        return map.isEncoding("opus") && map.clockRate == 48000 && map.channels == 2
    }

    /// The H.264 parameters of an "H264/90000" format with packetization-mode=1 and a profile
    /// that RFC 6184 Table 5 names; nil otherwise.
    static func h264Mode1(_ format: PayloadFormat) -> H264FormatParameters? {
        guard let map = format.rtpMap, map.isEncoding("H264"), map.clockRate == 90000,
              let parameters = H264FormatParameters(format.parameters), parameters.packetizationMode == 1,
              parameters.profileLevelID.profile != nil else { return nil }
        return parameters
    }

    /// Ingest preference by profile: what every viewer and the HLS packager decode first.
    static let ingestProfileOrder: [H264Profile] = [.constrainedBaseline, .baseline, .main, .constrainedHigh, .high]

    /// The publisher's H.264 format we take: best profile first, then the offerer's order.
    static func bestIngestH264(in media: MediaDescription) -> (PayloadFormat, H264FormatParameters)? {
        let candidates = media.payloadFormats.compactMap { format in h264Mode1(format).map { (format, $0) } }
        for profile in ingestProfileOrder {
            if let match = candidates.first(where: { $0.1.profileLevelID.profile == profile }) { return match }
        }
        return nil
    }

    /// The format's feedback that we support, de-duplicated, in `supportedFeedback` order.
    static func keptFeedback(_ offered: [RTCPFeedback], alsoSupportedBy other: [String]? = nil) -> [String] {
        let offeredSet = Set(offered.map(\.feedback))
        return NegotiatedCodec.supportedFeedback.filter { offeredSet.contains($0) && (other?.contains($0) ?? true) }
    }

    /// "VP8, VP9, H264 (42001f, packetization-mode=0)" for error messages, without repair and
    /// comfort-noise formats.
    static func offeredSummary(_ media: MediaDescription) -> String {
        var seen: [String] = []
        for format in media.payloadFormats {
            if let name = format.rtpMap?.encodingName,
               ["rtx", "red", "ulpfec", "flexfec-03", "cn", "telephone-event"].contains(SDPText.asciiLowercased(name)) {
                continue
            }
            let summary = format.summary
            if !seen.contains(summary) { seen.append(summary) }
        }
        return seen.isEmpty ? "nothing" : seen.joined(separator: ", ")
    }

    /// The header extensions of `media` whose URI is in `uris`, with ids that fit RTP headers.
    static func keptExtensions(_ media: MediaDescription, uris: [String]) -> [ExtMap] {
        media.extMaps.filter { uris.contains($0.uri) && $0.id <= 255 }
    }

    static func extensionTable(_ maps: [ExtMap]) -> [UInt8: String] {
        var table: [UInt8: String] = [:]
        for map in maps { table[UInt8(map.id)] = map.uri }
        return table
    }

    /// RFC 5888 §4: mids identify m= lines, so two m= lines may not share one.
    static func checkUniqueMids(_ description: SessionDescription) throws(NegotiationError) {
        var seen: Set<String> = []
        for mid in description.media.compactMap(\.mid) where !seen.insert(mid).inserted {
            throw .malformed("two m-lines have a=mid:\(mid) (RFC 5888 §4)")
        }
    }

    /// "m-line 1 (video, mid 1)" for error messages.
    static func label(_ media: MediaDescription, index: Int) -> String {
        "m-line \(index) (\(media.kind)\(media.mid.map { ", mid \($0)" } ?? ""))"
    }

    /// JSEP (RFC 8829 §5.1.2) media transports: DTLS-SRTP with RTCP feedback over UDP or TCP.
    static func isWebRTCMediaProto(_ proto: String) -> Bool {
        proto == "UDP/TLS/RTP/SAVPF" || proto == "TCP/DTLS/RTP/SAVPF" || proto == "UDP/TLS/RTP/SAVP"
    }
}
