/// Why an offer or answer cannot be used, with the HTTP status a WHIP/WHEP endpoint should
/// answer (RFC 9725 §4.2: 400 for a malformed offer, 422 when the offer is well-formed but the
/// server cannot accept what it asks for).
public struct NegotiationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 400 malformed, 422 unacceptable.
    public var status: Int
    /// A reason fit for the response body, e.g.
    /// "no H.264 with packetization-mode=1 offered (offered: VP8, VP9)".
    public var reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    /// The description breaks the SDP or JSEP rules (missing ICE credentials, no mid, ...).
    public static func malformed(_ reason: String) -> NegotiationError {
        NegotiationError(status: 400, reason: reason)
    }

    /// The description is valid but asks for something this relay does not do.
    public static func unacceptable(_ reason: String) -> NegotiationError {
        NegotiationError(status: 422, reason: reason)
    }

    /// A parse failure, reported as 400 with the line number.
    public init(_ error: SDPError) {
        self.init(status: 400, reason: "malformed SDP: \(error)")
    }

    public var description: String { "\(status): \(reason)" }
}
