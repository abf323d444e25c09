import Foundation
import OnAirCrypto
import OnAirDTLS
import Testing

@Suite("Certificates and SDP fingerprints")
struct DTLSCertificateTests {
    @Test("ECDSA certificate: fingerprint equals SHA-256 of the DER and the openssl CLI's")
    func ecdsaFingerprint() throws {
        let certificate = try DTLSCertificate.generateECDSA(commonName: "fingerprint-test", validity: .seconds(3600))
        let der = try #require(TestPEM.der(certificate.certificatePEM))
        #expect(certificate.fingerprintSHA256 == Digest.sha256(der))
        let sdp = certificate.sdpFingerprint
        #expect(sdp.hasPrefix("sha-256 "))
        let hex = sdp.dropFirst("sha-256 ".count)
        #expect(hex.count == 32 * 3 - 1)
        #expect(hex.allSatisfy { "0123456789ABCDEF:".contains($0) })

        try #require(OpenSSLCLI.isAvailable)
        let result = try OpenSSLCLI.run(["x509", "-noout", "-fingerprint", "-sha256", "-subject", "-text"],
                                        input: certificate.certificatePEM)
        #expect(result.status == 0)
        #expect(result.output.contains("sha256 Fingerprint=\(hex)"))
        #expect(result.output.contains("CN = fingerprint-test"))
        #expect(result.output.contains("prime256v1"))
        #expect(result.output.contains("ecdsa-with-SHA256"))
        #expect(result.output.contains("Version: 3"))
    }

    @Test("Validity: valid a day back, expires after the requested duration")
    func validity() throws {
        try #require(OpenSSLCLI.isAvailable)
        let certificate = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cert.pem").path
        try certificate.certificatePEM.write(toFile: file, atomically: true, encoding: .utf8)
        // -checkend N: exit 0 if still valid N seconds from now.
        #expect(try OpenSSLCLI.run(["x509", "-noout", "-in", file, "-checkend", "1800"]).status == 0)
        #expect(try OpenSSLCLI.run(["x509", "-noout", "-in", file, "-checkend", "7200"]).status != 0)
        // Self-signed, and already valid 20 hours ago (notBefore is a day back).
        let earlier = String(Int(Date().timeIntervalSince1970) - 20 * 3600)
        let verify = try OpenSSLCLI.run(["verify", "-CAfile", file, "-attime", earlier, file])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test("Serial numbers differ between certificates")
    func randomSerial() throws {
        try #require(OpenSSLCLI.isAvailable)
        let a = try OpenSSLCLI.run(["x509", "-noout", "-serial"], input: try DTLSCertificate.generateECDSA(validity: .seconds(60)).certificatePEM)
        let b = try OpenSSLCLI.run(["x509", "-noout", "-serial"], input: try DTLSCertificate.generateECDSA(validity: .seconds(60)).certificatePEM)
        #expect(a.output.hasPrefix("serial="))
        #expect(a.output != b.output)
    }

    @Test("RSA certificate: 2048-bit key, SHA-256 signature")
    func rsaCertificate() throws {
        let certificate = try DTLSCertificate.generateRSA()
        #expect(certificate.fingerprintSHA256 == Digest.sha256(try #require(TestPEM.der(certificate.certificatePEM))))
        try #require(OpenSSLCLI.isAvailable)
        let text = try OpenSSLCLI.run(["x509", "-noout", "-text"], input: certificate.certificatePEM).output
        #expect(text.contains("rsaEncryption"))
        #expect(text.contains("(2048 bit)"))
        #expect(text.contains("sha256WithRSAEncryption"))
    }

    @Test("PEM round trip keeps the fingerprint; a foreign key is refused")
    func pemRoundTrip() throws {
        let original = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        #expect(original.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try DTLSCertificate(certificatePEM: original.certificatePEM, privateKeyPEM: original.privateKeyPEM)
        #expect(loaded.fingerprintSHA256 == original.fingerprintSHA256)
        let other = try DTLSCertificate.generateECDSA(validity: .seconds(3600))
        #expect(throws: OpenSSLError.self) {
            try DTLSCertificate(certificatePEM: original.certificatePEM, privateKeyPEM: other.privateKeyPEM)
        }
        #expect(throws: OpenSSLError.self) {
            try DTLSCertificate(certificatePEM: "not a pem", privateKeyPEM: original.privateKeyPEM)
        }
    }

    @Test("PeerFingerprint parses SDP values and refuses malformed ones")
    func peerFingerprintParsing() throws {
        let certificate = try DTLSCertificate.generateECDSA(validity: .seconds(60))
        let parsed = try PeerFingerprint(sdpValue: certificate.sdpFingerprint)
        #expect(parsed == certificate.fingerprint)
        #expect(parsed.sdpValue == certificate.sdpFingerprint)
        let lower = try PeerFingerprint(sdpValue: "SHA-1 " + (0..<20).map { _ in "ab" }.joined(separator: ":"))
        #expect(lower.algorithm == "sha-1")
        #expect(lower.bytes == [UInt8](repeating: 0xAB, count: 20))

        let rejected = [
            "", "sha-256", "sha-256 AB:CD", // too short for sha-256
            "sha-256 " + (0..<32).map { _ in "GG" }.joined(separator: ":"),
            "sha-256 " + (0..<32).map { _ in "A" }.joined(separator: ":"),
            "sha-256 " + (0..<31).map { _ in "AB" }.joined(separator: ":") + "::AB",
            "sha-256 AB:CD extra", "md5 " + (0..<16).map { _ in "AB" }.joined(separator: ":"),
        ]
        for value in rejected {
            #expect(throws: DTLSError.self, "\(value)") { try PeerFingerprint(sdpValue: value) }
        }
        #expect(throws: DTLSError.unsupportedHashFunction("sha-224")) {
            try PeerFingerprint(algorithm: "sha-224", bytes: [UInt8](repeating: 0, count: 28))
        }
        #expect(throws: DTLSError.invalidFingerprint("sha-512 digest has 32 bytes, expected 64")) {
            try PeerFingerprint(algorithm: "sha-512", bytes: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("Endpoint arguments are checked")
    func endpointArguments() throws {
        let certificate = try DTLSCertificate.generateECDSA(validity: .seconds(60))
        #expect(throws: DTLSError.self) {
            try DTLSEndpoint(role: .client, certificate: certificate, expectedPeerFingerprint: nil, profiles: [])
        }
        #expect(throws: DTLSError.self) {
            try DTLSEndpoint(role: .client, certificate: certificate, expectedPeerFingerprint: nil, mtu: 100)
        }
    }
}
