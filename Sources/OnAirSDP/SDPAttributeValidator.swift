/// Checks the attributes this module gives typed views of while a description is parsed, so
/// that a malformed `a=` line is reported with its line number (RFC 8866 §5.13 leaves unknown
/// attributes alone; we do too).
enum SDPAttributeValidator {
    /// - Parameter isRTP: whether the enclosing m= line uses an RTP profile; rtpmap, fmtp and
    ///   rtcp-fb formats are only payload types there.
    static func validate(_ attribute: SDPAttribute, isRTP: Bool) throws(SDPError) {
        switch attribute.name {
        case "rtpmap" where isRTP: try check(attribute, RTPMap.self)
        case "fmtp" where isRTP: try check(attribute, FormatParameters.self)
        case "rtcp-fb" where isRTP: try check(attribute, RTCPFeedback.self)
        case "candidate": try check(attribute, ICECandidate.self)
        case "fingerprint": try check(attribute, DTLSFingerprint.self)
        case "setup": try check(attribute, DTLSSetup.self)
        case "extmap": try check(attribute, ExtMap.self)
        case "ssrc": try check(attribute, SSRCAttribute.self)
        case "ssrc-group": try check(attribute, SSRCGroup.self)
        case "msid": try check(attribute, MediaStreamID.self)
        case "rid": try check(attribute, RIDDescription.self)
        case "simulcast": try check(attribute, SimulcastDescription.self)
        case "group": try check(attribute, SDPGroup.self)
        case "mid", "ice-ufrag", "ice-pwd":
            guard let value = attribute.value, SDPText.isWord(value[...]) else {
                throw SDPError("a=\(attribute.name) needs a value without spaces")
            }
        default: return
        }
    }

    private static func check<Value: SDPAttributeValue>(_ attribute: SDPAttribute, _ type: Value.Type) throws(SDPError) {
        guard let value = attribute.value else {
            throw SDPError("a=\(attribute.name) needs a value")
        }
        _ = try Value(attributeValue: value)
    }
}
