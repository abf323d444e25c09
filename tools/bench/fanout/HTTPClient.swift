import Foundation
import Glibc

/// A minimal blocking HTTP/1.1 client for WHIP/WHEP signalling on loopback: one request per
/// connection (`Connection: close`), the body read to EOF. Enough for `POST` with an SDP offer
/// and `DELETE`; not a general client (no chunked requests, no TLS, no redirects).
struct HTTPClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    let host: String
    let port: UInt16
    var timeoutSeconds = 20

    /// Parses "http://host:port" (IPv4 literal host).
    init(baseURL: String) throws {
        guard baseURL.hasPrefix("http://") else { throw BenchError("only http:// URLs are supported: \(baseURL)") }
        let rest = baseURL.dropFirst("http://".count).split(separator: "/", maxSplits: 1).first ?? ""
        let parts = rest.split(separator: ":")
        guard parts.count == 2, let port = UInt16(parts[1]) else { throw BenchError("expected http://HOST:PORT, got \(baseURL)") }
        host = String(parts[0])
        self.port = port
    }

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// True when something accepts TCP connections at host:port.
    func isListening() -> Bool {
        guard let fd = try? connect() else { return false }
        close(fd)
        return true
    }

    func request(_ method: String, path: String, contentType: String? = nil, body: String = "") throws -> Response {
        let fd = try connect()
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        try sendAll(fd, Array((head + body).utf8))
        let raw = try receiveAll(fd)
        return try Self.parse(raw)
    }

    private func connect() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw BenchError("not an IPv4 address: \(host)")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw BenchError("connect \(host):\(port): \(reason)")
        }
        return fd
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw BenchError("HTTP send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    private func receiveAll(_ fd: Int32) throws -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return data }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw BenchError("HTTP receive: \(String(cString: strerror(errno)))")
            }
            data += chunk[0..<count]
        }
    }

    /// Status line, headers, then the body (Content-Length or to EOF; chunked is decoded).
    static func parse(_ raw: [UInt8]) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let split = (0..<max(0, raw.count - 3)).first(where: { Array(raw[$0..<$0 + 4]) == separator }) else {
            throw BenchError("HTTP response without a header block (\(raw.count) bytes)")
        }
        let head = String(decoding: raw[..<split], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw BenchError("bad status line: \(head[0])") }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(raw[(split + 4)...])
        let response = Response(status: status, headers: headers, body: "")
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16),
                  size > 0, lineEnd + 2 + size <= bytes.count else { break }
            out += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 4 + size
        }
        return out
    }
}
