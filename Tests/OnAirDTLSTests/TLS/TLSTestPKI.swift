import Foundation

/// A throwaway PKI made by the `openssl` CLI in a temporary directory: a CA, a server
/// certificate it signed for `IP:127.0.0.1` and `DNS:turn.test` (RFC 6125 §6: subjectAltName),
/// and a second, unrelated CA that signed nothing of the server's.
struct TLSTestPKI {
    let directory: URL
    let caPath: String
    let otherCAPath: String
    let serverCertificatePath: String
    let serverKeyPath: String

    static let config = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = unused
        [ca]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [server]
        basicConstraints = CA:FALSE
        extendedKeyUsage = serverAuth
        subjectAltName = IP:127.0.0.1,DNS:turn.test
        """

    init() throws {
        let directory = try OpenSSLCLI.temporaryDirectory()
        self.directory = directory
        let config = directory.appendingPathComponent("pki.cnf").path
        try Self.config.write(toFile: config, atomically: true, encoding: .utf8)
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        caPath = path("ca.pem")
        otherCAPath = path("other-ca.pem")
        serverCertificatePath = path("server.pem")
        serverKeyPath = path("server.key")
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try Self.run(["req", "-x509", "-config", config, "-extensions", "ca"] + key
                     + ["-keyout", path("ca.key"), "-out", caPath, "-subj", "/CN=OnAir Test CA", "-days", "1"])
        try Self.run(["req", "-x509", "-config", config, "-extensions", "ca"] + key
                     + ["-keyout", path("other-ca.key"), "-out", otherCAPath, "-subj", "/CN=Other CA", "-days", "1"])
        try Self.run(["req", "-new", "-config", config] + key
                     + ["-keyout", serverKeyPath, "-out", path("server.csr"), "-subj", "/CN=turn.test"])
        try Self.run(["x509", "-req", "-in", path("server.csr"), "-CA", caPath, "-CAkey", path("ca.key"), "-CAcreateserial",
                      "-out", serverCertificatePath, "-days", "1", "-extfile", config, "-extensions", "server"])
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    private static func run(_ arguments: [String]) throws {
        let result = try OpenSSLCLI.run(arguments)
        guard result.status == 0 else {
            throw UDPTestSocket.SocketError(description: "openssl \(arguments.first ?? ""): \(result.output)")
        }
    }
}
