/// Typed views of the RTP attributes of an m= line: codecs (RFC 8866 §6.6, §6.15), feedback
/// (RFC 4585 §4.2), header extensions (RFC 8285), sources (RFC 5576), streams (RFC 8830) and
/// simulcast (RFC 8851, RFC 8853).
extension MediaDescription {
    public var rtpMaps: [RTPMap] { all(RTPMap.self) }
    public var formatParameters: [FormatParameters] { all(FormatParameters.self) }
    public var rtcpFeedback: [RTCPFeedback] { all(RTCPFeedback.self) }
    public var extMaps: [ExtMap] { all(ExtMap.self) }
    public var ssrcAttributes: [SSRCAttribute] { all(SSRCAttribute.self) }
    public var ssrcGroups: [SSRCGroup] { all(SSRCGroup.self) }
    public var msids: [MediaStreamID] { all(MediaStreamID.self) }
    public var rids: [RIDDescription] { all(RIDDescription.self) }
    public var simulcast: SimulcastDescription? { first(SimulcastDescription.self) }

    /// The payload types of the m= line in preference order (formats that are not numbers 0-127
    /// are skipped).
    public var payloadTypes: [UInt8] {
        formats.compactMap { format in
            guard let value = SDPText.decimal(format, as: UInt8.self), value <= 127 else { return nil }
            return value
        }
    }

    public func rtpMap(for payloadType: UInt8) -> RTPMap? {
        rtpMaps.first { $0.payloadType == payloadType } ?? RTPMap.staticPayloadType(payloadType)
    }

    /// All fmtp parameters of `payloadType`, concatenated when several fmtp lines exist.
    public func formatParameters(for payloadType: UInt8) -> [FormatParameter] {
        formatParameters.filter { $0.payloadType == payloadType }.flatMap(\.parameters)
    }

    /// Feedback for `payloadType`, including "*" lines.
    public func rtcpFeedback(for payloadType: UInt8) -> [RTCPFeedback] {
        rtcpFeedback.filter { $0.payloadType == nil || $0.payloadType == payloadType }
    }

    /// Every payload type of the m= line with its rtpmap, fmtp and feedback, in preference order.
    public var payloadFormats: [PayloadFormat] {
        // Parse each attribute kind once: a browser's video m= line lists ~20 payload types.
        let maps = rtpMaps, parameters = formatParameters, feedback = rtcpFeedback
        return payloadTypes.map { pt in
            PayloadFormat(payloadType: pt,
                          rtpMap: maps.first { $0.payloadType == pt } ?? RTPMap.staticPayloadType(pt),
                          parameters: parameters.filter { $0.payloadType == pt }.flatMap(\.parameters),
                          feedback: feedback.filter { $0.payloadType == nil || $0.payloadType == pt })
        }
    }

    /// The RTX payload type (RFC 4588 §8.6) whose `apt=` names `payloadType`, if listed.
    public func rtxPayloadType(for payloadType: UInt8) -> UInt8? {
        payloadFormats.first { format in
            format.rtpMap?.isEncoding("rtx") == true && format.parameters.value(for: "apt") == String(payloadType)
        }?.payloadType
    }

    /// The first source: the first SSRC of a FID or SIM group, else the first `a=ssrc`.
    public var primarySSRC: UInt32? {
        if let group = ssrcGroups.first(where: { $0.semantics == SSRCGroup.simulcast }) { return group.ssrcs.first }
        if let group = ssrcGroups.first(where: { $0.semantics == SSRCGroup.flowIdentification }) { return group.ssrcs.first }
        return ssrcAttributes.first?.ssrc
    }

    /// The RTX SSRC paired with `ssrc` by `a=ssrc-group:FID` (RFC 4588 §8.3).
    public func rtxSSRC(for ssrc: UInt32) -> UInt32? {
        for group in ssrcGroups where group.semantics == SSRCGroup.flowIdentification && group.ssrcs.count >= 2 {
            if group.ssrcs[0] == ssrc { return group.ssrcs[1] }
        }
        return nil
    }

    /// RFC 7022 CNAME of `ssrc` (`a=ssrc:<ssrc> cname:<value>`).
    public func cname(for ssrc: UInt32) -> String? {
        ssrcAttributes.first { $0.ssrc == ssrc && $0.name == "cname" }?.value
    }
}

extension RTPMap {
    /// RFC 3551 §6 static audio payload types that WebRTC stacks list without an rtpmap.
    static func staticPayloadType(_ payloadType: UInt8) -> RTPMap? {
        switch payloadType {
        case 0: return RTPMap(payloadType: 0, encodingName: "PCMU", clockRate: 8000)
        case 8: return RTPMap(payloadType: 8, encodingName: "PCMA", clockRate: 8000)
        case 9: return RTPMap(payloadType: 9, encodingName: "G722", clockRate: 8000)
        default: return nil
        }
    }
}
