import CAllocationCounter
import CLiveOpenSSL
import OnAirDTLS
import Testing

/// ``TLSClientStream`` against OpenSSL as a server in-process (``TLSTestServer``), with a PKI the
/// openssl CLI made: the handshake, data both ways, and the refusals RFC 8656 §3.1's TLS needs
/// (an unknown CA, a certificate for another name or address, a server older than TLS 1.2).
@Suite("TLS client stream (turns:)", .enabled(if: OpenSSLCLI.isAvailable))
final class TLSClientStreamTests {
    let pki: TLSTestPKI

    init() throws { pki = try TLSTestPKI() }
    deinit { pki.remove() }

    func server(maximumVersion: Int32? = nil) throws -> TLSTestServer {
        try TLSTestServer(certificate: pki.serverCertificatePath, key: pki.serverKeyPath, maximumVersion: maximumVersion)
    }

    /// Moves bytes both ways until neither side has any (the server's to the client in pieces
    /// of `chunk` bytes); returns the plaintext the client got.
    @discardableResult
    func shuttle(_ client: TLSClientStream, _ server: TLSTestServer, chunk: Int = 1 << 20) -> [UInt8] {
        var plaintext: [UInt8] = []
        for _ in 0..<50 {
            var toServer: [UInt8] = []
            client.takeOutput { toServer += $0 }
            server.receive(toServer)
            let toClient = server.takeOutput()
            for start in stride(from: 0, to: toClient.count, by: chunk) {
                toClient[start..<min(start + chunk, toClient.count)].withUnsafeBytes { client.receive($0) { plaintext += $0 } }
            }
            if toServer.isEmpty && toClient.isEmpty { break }
        }
        return plaintext
    }

    func failure(_ client: TLSClientStream) -> String? {
        if case .failed(let reason) = client.state { return reason }
        return nil
    }

    @Test("IP literal, CA file: established at TLS 1.2+, no SNI, early writes wait, data both ways in order")
    func establishedByIP() throws {
        let server = try server()
        let client = try TLSClientStream(serverName: "127.0.0.1", caFile: pki.caPath)
        let early: [UInt8] = [0x00, 0x03, 0x00, 0x00] + Array(repeating: 7, count: 16)
        #expect(early.withUnsafeBytes { client.write($0) })
        shuttle(client, server)
        #expect(client.state == .established, "\(String(describing: failure(client)))")
        #expect(["TLSv1.2", "TLSv1.3"].contains(client.protocolVersion ?? ""))
        #expect(server.serverName == nil)  // RFC 6066 §3: no IP literal in SNI
        #expect(server.received == early)
        var stream: [UInt8] = []
        for index in 0..<100 {
            let packet = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 1_204)
            stream += packet
            packet.withUnsafeBytes { _ = client.write($0) }
        }
        shuttle(client, server)
        #expect(server.received == early + stream)
        let reply = [UInt8](0..<200) + [UInt8](repeating: 1, count: 40_000)
        server.write(reply)
        #expect(shuttle(client, server) == reply)
    }

    @Test("DNS name: sent as SNI, matched against the certificate's DNS subjectAltName; byte-by-byte delivery")
    func establishedByName() throws {
        let server = try server()
        let client = try TLSClientStream(serverName: "turn.test", caFile: pki.caPath)
        shuttle(client, server, chunk: 1)
        #expect(client.state == .established, "\(String(describing: failure(client)))")
        #expect(server.serverName == "turn.test")
        server.write(Array("hello".utf8))
        #expect(shuttle(client, server, chunk: 1) == Array("hello".utf8))
    }

    @Test("a certificate from a CA we were not given: refused, naming the host and OpenSSL's reason",
          arguments: [true, false])
    func unknownCA(otherCAFile: Bool) throws {
        let server = try server()
        let client = try TLSClientStream(serverName: "127.0.0.1", caFile: otherCAFile ? pki.otherCAPath : nil)
        #expect([UInt8](repeating: 1, count: 8).withUnsafeBytes { client.write($0) })
        shuttle(client, server)
        let reason = try #require(failure(client))
        #expect(reason == "TLS certificate verify failed for 127.0.0.1: unable to get local issuer certificate")
        #expect(server.failure != nil && server.received.isEmpty)  // our alert ended it; nothing leaked
        #expect(![UInt8](repeating: 1, count: 8).withUnsafeBytes { client.write($0) })
    }

    @Test("a certificate for another name or address: refused", arguments: [
        ("other.test", "hostname mismatch"), ("127.0.0.2", "IP address mismatch"), ("test", "hostname mismatch"),
    ])
    func wrongName(host: String, reason: String) throws {
        let server = try server()
        let client = try TLSClientStream(serverName: host, caFile: pki.caPath)
        shuttle(client, server)
        #expect(failure(client) == "TLS certificate verify failed for \(host): \(reason)")
    }

    @Test("a server that stops at TLS 1.1: refused (RFC 8656 §3.1, RFC 9325 §3.1.1)")
    func oldServer() throws {
        let server = try server(maximumVersion: TLS1_1_VERSION)
        let client = try TLSClientStream(serverName: "127.0.0.1", caFile: pki.caPath)
        shuttle(client, server)
        let reason = try #require(failure(client))
        #expect(reason.hasPrefix("TLS handshake with 127.0.0.1 failed:"), "\(reason)")
        #expect(reason.contains("protocol version") || reason.contains("unsupported protocol"), "\(reason)")
    }

    @Test("an unreadable or non-PEM CA file: a setup error naming the file")
    func badCAFile() throws {
        for path in [pki.directory.appendingPathComponent("missing.pem").path, pki.directory.appendingPathComponent("pki.cnf").path] {
            let error = #expect(throws: TLSClientError.self) { try TLSClientStream(serverName: "turn.test", caFile: path) }
            #expect(error?.description.hasPrefix("cannot load the CA file \(path)") == true, "\(String(describing: error))")
        }
    }

    @Test("close(): close_notify goes out, the stream is closed, later writes are refused")
    func closeNotify() throws {
        let server = try server()
        let client = try TLSClientStream(serverName: "127.0.0.1", caFile: pki.caPath)
        shuttle(client, server)
        client.close()
        #expect(client.state == .closed && client.hasOutput)
        #expect(![UInt8](repeating: 1, count: 8).withUnsafeBytes { client.write($0) })
    }

    /// OpenSSL 3.0's `SSL_write` itself allocates per record (measured on 3.0.19: 3 under TLS
    /// 1.3, 2 under TLS 1.2, inside the record layer's cipher calls); the stream adds none.
    @Test("steady state, a packet's write and output allocate no more than a bare SSL_write",
          arguments: [TLS1_2_VERSION, TLS1_3_VERSION])
    func allocationFree(version: Int32) throws {
        let server = try server(maximumVersion: version)
        let client = try TLSClientStream(serverName: "127.0.0.1", caFile: pki.caPath)
        shuttle(client, server)
        #expect(client.state == .established)
        let packet = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_204, alignment: 16)
        defer { packet.deallocate() }
        packet.initializeMemory(as: UInt8.self, repeating: 9)
        var bytes = 0
        func send() {
            _ = client.write(UnsafeRawBufferPointer(packet))
            client.takeOutput { bytes += $0.count }
        }
        func bare() {
            server.rawWrite(UnsafeRawBufferPointer(packet))
            server.discardOutput()
        }
        for _ in 0..<20 { send(); bare() }  // OpenSSL's buffers reach their size
        let ours = Self.allocations(500, send)
        let openSSLs = Self.allocations(500, bare)
        #expect(ours <= openSSLs, "write+takeOutput: \(ours) allocations for 500 packets; bare SSL_write: \(openSSLs)")
        #expect(bytes > 520 * 1_204)
    }

    static func allocations(_ times: Int, _ body: () -> Void) -> Int {
        allocation_counter_reset()
        allocation_counter_resume()
        for _ in 0..<times { body() }
        allocation_counter_pause()
        return allocation_counter_total()
    }
}
