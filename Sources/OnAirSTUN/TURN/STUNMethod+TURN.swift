/// The TURN methods (RFC 8656 §17, §18.1): Allocate, Refresh, CreatePermission and ChannelBind
/// are requests; Send and Data only ever travel as indications.
extension STUNMethod {
    /// RFC 8656 §7.1
    public static let allocate = STUNMethod(rawValue: 0x003)!
    /// RFC 8656 §7.4
    public static let refresh = STUNMethod(rawValue: 0x004)!
    /// RFC 8656 §11.1 (indication only)
    public static let send = STUNMethod(rawValue: 0x006)!
    /// RFC 8656 §11.4 (indication only)
    public static let data = STUNMethod(rawValue: 0x007)!
    /// RFC 8656 §10.1
    public static let createPermission = STUNMethod(rawValue: 0x008)!
    /// RFC 8656 §12.1
    public static let channelBind = STUNMethod(rawValue: 0x009)!
}
