
/// Random ICE credentials (RFC 8839 §5.4): ufrag ≥ 4 and password ≥ 22 ice-chars, here 8 and
/// 24 characters drawn from the 64-character ice-char alphabet (48 and 144 bits).
package struct ICECredentials: Sendable {
    package let ufrag: String
    package let password: String

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    package static func generate(using environment: PlaneEnvironment) -> ICECredentials {
        ICECredentials(ufrag: randomString(8, using: environment), password: randomString(24, using: environment))
    }

    package static func randomString(_ length: Int, using environment: PlaneEnvironment) -> String {
        String(environment.randomBytes(length).map { alphabet[Int($0 & 63)] })
    }

    /// A random opaque identifier for session URLs and entity tags (128 bits, hex).
    package static func randomID(using environment: PlaneEnvironment) -> String {
        environment.randomBytes(16).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }
}
