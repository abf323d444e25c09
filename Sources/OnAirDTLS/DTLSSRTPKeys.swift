import OnAirCrypto

/// SRTP master keys and salts derived from a DTLS handshake (RFC 5764 §4.2), already split
/// into the direction we send with (`local…`) and the direction we receive with (`remote…`).
public struct DTLSSRTPKeys: Sendable, Equatable {
    /// The protection profile both sides agreed on in the `use_srtp` extension.
    public var profile: SRTPProfile
    /// Protects what we send.
    public var localMasterKey: [UInt8]
    public var localMasterSalt: [UInt8]
    /// Unprotects what the peer sends.
    public var remoteMasterKey: [UInt8]
    public var remoteMasterSalt: [UInt8]

    public init(profile: SRTPProfile, localMasterKey: [UInt8], localMasterSalt: [UInt8],
                remoteMasterKey: [UInt8], remoteMasterSalt: [UInt8]) {
        self.profile = profile
        self.localMasterKey = localMasterKey
        self.localMasterSalt = localMasterSalt
        self.remoteMasterKey = remoteMasterKey
        self.remoteMasterSalt = remoteMasterSalt
    }

    /// The label of the keying-material exporter (RFC 5764 §4.2, RFC 5705).
    static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// Bytes to export: a key and a salt for each direction.
    static func exportLength(for profile: SRTPProfile) -> Int {
        2 * (profile.keyLength + profile.saltLength)
    }

    /// Splits exported keying material. RFC 5764 §4.2 lays it out as
    /// `client_write_SRTP_master_key | server_write_SRTP_master_key |
    ///  client_write_SRTP_master_salt | server_write_SRTP_master_salt`.
    init(profile: SRTPProfile, exported material: [UInt8], role: DTLSRole) {
        precondition(material.count == Self.exportLength(for: profile), "exporter returned the wrong length")
        let k = profile.keyLength
        let s = profile.saltLength
        let clientKey = Array(material[0..<k])
        let serverKey = Array(material[k..<2 * k])
        let clientSalt = Array(material[2 * k..<2 * k + s])
        let serverSalt = Array(material[2 * k + s..<2 * k + 2 * s])
        switch role {
        case .client:
            self.init(profile: profile, localMasterKey: clientKey, localMasterSalt: clientSalt,
                      remoteMasterKey: serverKey, remoteMasterSalt: serverSalt)
        case .server:
            self.init(profile: profile, localMasterKey: serverKey, localMasterSalt: serverSalt,
                      remoteMasterKey: clientKey, remoteMasterSalt: clientSalt)
        }
    }
}
