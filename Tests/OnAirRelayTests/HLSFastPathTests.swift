import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import OnAirHTTP
import Testing
@testable import OnAirRelay

/// LL-HLS requests answered in the HTTP pipeline (HLSFastPathHandler): parsed as the router
/// would, answered with the router's headers, and in request order when requests are
/// pipelined on one connection (RFC 9112 §9.3.2) with router requests between them.
@Suite("HLS: fast path", .serialized)
struct HLSFastPathTests {
    @Test("routes: the multivariant playlist, a stream's resources with their query, nothing else")
    func routes() throws {
        #expect(try HLSRoute.parse(path: "/hls/42/index.m3u8", query: nil) == .multivariant(room: "42"))
        let held = try HLSRoute.parse(path: "/hls/42/abc/media.m3u8", query: "_HLS_msn=7&_HLS_part=%32&x=1&_HLS_skip=YES")
        guard case .resource(let room, let stream, let file, let request) = held else {
            Issue.record("not a resource: \(String(describing: held))")
            return
        }
        #expect(room == "42" && stream == "abc" && file == "media.m3u8")
        #expect(request.mediaSequence == 7 && request.part == 2 && request.deltaUpdate)
        for path in ["/hlsx/42/index.m3u8", "/hls/42", "/hls/42/other.m3u8", "/hls/42/a/b/c", "/hls/42//media.m3u8", "/rooms/42"] {
            #expect(try HLSRoute.parse(path: path[...], query: nil) == nil, "\(path)")
        }
        #expect(throws: RelayHTTPError.self) { try HLSRoute.parse(path: "/hls/4%2/index.m3u8", query: nil) }
        // RFC 3986 §2.1: the room segment is percent-decoded before the room-id rule.
        #expect(try HLSRoute.parse(path: "/hls/%34%32/index.m3u8", query: nil) == .multivariant(room: "42"))
        for room in ["%2F", "a%2Fb", "%2E%2E", "%2e", "%00"] {
            #expect(throws: RelayHTTPError.self, "\(room)") { try HLSRoute.parse(path: "/hls/\(room)/index.m3u8"[...], query: nil) }
        }
        #expect(throws: RelayHTTPError.self) { try HLSRoute.parse(path: "/hls/42/s/media.m3u8", query: "_HLS_msn=x") }
    }

    /// Starts the relay's HTTP server (with the fast path, as RelayServer wires it) on a free
    /// port, sends `requests` back to back on one connection, and returns everything the
    /// server sent until it closed the connection.
    func exchange(_ requests: String) async throws -> String {
        let relay = try await TestRelay.start()
        let portPromise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Int.self)
        let app = Application(
            router: RelayRouter.build(workers: relay.workers, config: relay.config, logger: relay.logger),
            server: .http1(configuration: .init(additionalChannelHandlers: [
                HLSFastPathHandler(hls: relay.workers.hls, cors: CORSPolicy(allowedOrigins: ["*"], requestHeaders: [])),
            ])),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "OnAir"),
            onServerRunning: { channel in portPromise.succeed(channel.localAddress?.port ?? 0) },
            logger: relay.logger)
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { try await app.runService(); return nil }
            let port = try await portPromise.futureResult.get()
            let answer = try await Task.detached { try Self.rawExchange(port: port, send: requests) }.value
            group.cancelAll()
            await relay.stop()
            return answer
        }
    }

    static func rawExchange(port: Int, send text: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            received += buffer[..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test("pipelined router and HLS requests are answered in order; Connection: close closes after its answer")
    func pipelinedOrder() async throws {
        let answer = try await exchange(
            "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /hls/42/index.m3u8 HTTP/1.1\r\nHost: x\r\nOrigin: https://a.example\r\n\r\n"
            + "GET /hls/42/s1/media.m3u8?_HLS_msn=1 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /hls/4%2/index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /hls/42/unknown HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
        #expect(statuses == ["200", "404", "404", "400", "404", "200"], "\(answer)")
        // Bodies in the same order, with the router's plain-text reasons.
        let order = ["ok\n", "room 42 is not live\n", "no such stream in room 42\n", "room id must be", "ok\n"]
        var cursor = answer.startIndex
        for body in order {
            let found = try #require(answer.range(of: body, range: cursor..<answer.endIndex), "\(body) out of order in \(answer)")
            cursor = found.upperBound
        }
        // The HLS answer to a request with Origin carries CORS headers, like the router's.
        let hls = try #require(answer.range(of: "room 42 is not live"))
        let head = answer[..<hls.lowerBound].components(separatedBy: "HTTP/1.1 ").last ?? ""
        #expect(head.contains("Access-Control-Allow-Origin: *") && head.contains("Server: OnAir") && head.contains("Date: "), "\(head)")
    }

    @Test("HEAD is answered here as GET is, with GET's Content-Length and no content (RFC 9110 §9.3.2)")
    func head() async throws {
        let answer = try await exchange(
            "HEAD /hls/42/index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "HEAD /hls/4%2/index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let responses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst()
        #expect(responses.map { String($0.prefix(3)) } == ["404", "400", "200"], "\(answer)")
        let notLive = "room 42 is not live\n"
        #expect(responses.first?.contains("Content-Length: \(notLive.utf8.count)") == true, "\(answer)")
        #expect(!answer.contains(notLive) && !answer.contains("room id must be"), "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\nok\n"), "\(answer)")
    }

    @Test("a router answer after one given here is framed by its own request's method (HEAD, then GET)")
    func routerFramingAfterFastPath() async throws {
        // HTTP/1's encoder frames each answer by the method of the request it answers, in
        // order: an answer written past it would leave it one request behind, and the GET
        // below would be framed as the HEAD before it (no content).
        let answer = try await exchange(
            "GET /hls/42/index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
        #expect(statuses == ["404", "200", "200"], "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\nok\n"), "\(answer)")
        #expect(answer.components(separatedBy: "ok\n").count == 2, "one body, the GET's: \(answer)")
    }

    @Test("requests pipelined behind one answered here wait for it, then take the same path decision")
    func pipelinedBehindTheFastPath() async throws {
        let answer = try await exchange(
            "GET /hls/42/index.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /hls/42/s1/init.mp4 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            + "GET /hls/43/index.m3u8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
        #expect(statuses == ["404", "404", "200", "404"], "\(answer)")
        var cursor = answer.startIndex
        for body in ["room 42 is not live\n", "no such stream in room 42\n", "ok\n", "room 43 is not live\n"] {
            let found = try #require(answer.range(of: body, range: cursor..<answer.endIndex), "\(body) out of order in \(answer)")
            cursor = found.upperBound
        }
        // One taken here with Connection: close: answered, said so, and the connection closed.
        let closing = try await exchange("GET /hls/44/index.m3u8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(closing.hasPrefix("HTTP/1.1 404") && closing.contains("Connection: close") && closing.hasSuffix("room 44 is not live\n"))
    }
}
