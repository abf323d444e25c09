/// The DTLS role we take once offer/answer is done (RFC 5763 §5, RFC 8842 §5).
public enum DTLSSetupRole: String, Sendable, Equatable {
    /// DTLS client: we send the ClientHello.
    case active
    /// DTLS server: we wait for the peer's ClientHello.
    case passive

    /// The `a=setup:` value that announces this role in an answer.
    public var setupAttribute: DTLSSetup {
        self == .active ? .active : .passive
    }

    /// RFC 8842 §5.3: the answerer's role given the offer's `a=setup`. An actpass offer leaves
    /// the choice to us and we take passive (DTLS server), as an ICE-lite server should; an
    /// active offerer makes us passive; a passive one makes us active. A missing attribute is
    /// RFC 4145 §4's default, active. holdconn cannot start media.
    static func answering(_ offered: DTLSSetup?) throws(NegotiationError) -> DTLSSetupRole {
        switch offered ?? .active {
        case .actpass, .active: return .passive
        case .passive: return .active
        case .holdconn: throw .unacceptable("a=setup:holdconn offers no DTLS connection")
        }
    }

    /// RFC 8842 §5.2: our role as offerer once the answer says `active` or `passive`.
    static func offering(answered: DTLSSetup?) throws(NegotiationError) -> DTLSSetupRole {
        switch answered {
        case .active: return .passive
        case .passive: return .active
        case .actpass, .holdconn, nil:
            throw .malformed("the answer's a=setup must be active or passive (RFC 8842 §5.2), found \(answered?.rawValue ?? "none")")
        }
    }
}
