import CLiveSocket
import Glibc
import OnAirWire

/// A viewer's ICE-TCP connection to the relay's passive candidate (RFC 6544), RFC 4571
/// framing both ways: blocking writes (a viewer sends little: checks, RTCP) and non-blocking
/// reads, one frame at a time into the loop's ``ReceiveBatch`` slots.
final class TCPStream {
    let remote: TransportAddress
    let fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    init(remote: TransportAddress) throws {
        self.remote = remote
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = UDPEndpoint.sockaddr(remote)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw BenchError("connect \(remote): \(reason)")
        }
        self.fd = fd
        buffer = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Sends one packet with its 2-byte length.
    func send(_ bytes: UnsafeRawBufferPointer) {
        let (high, low) = RFC4571Deframer.header(length: bytes.count)
        var header = [high, low]
        _ = header.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, 2, Int32(MSG_NOSIGNAL | MSG_MORE)) }
        _ = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// Copies the next complete packet into `slot` and returns its length; nil when none has
    /// fully arrived (reads what the kernel has first).
    func nextFrame(into slot: UnsafeMutableRawBufferPointer) -> Int? {
        if let length = takeFrame(into: slot) { return length }
        if start > 0 {
            if end > start { UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(end - start)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<end])) }
            end -= start
            start = 0
        }
        let count = recv(fd, buffer.baseAddress! + end, buffer.count - end, Int32(MSG_DONTWAIT))
        guard count > 0 else { return nil }
        end += count
        return takeFrame(into: slot)
    }

    private func takeFrame(into slot: UnsafeMutableRawBufferPointer) -> Int? {
        guard end - start >= 2 else { return nil }
        let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
        guard end - start >= 2 + length else { return nil }
        let copied = min(length, slot.count)
        slot.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[(start + 2)..<(start + 2 + copied)]))
        start += 2 + length
        return copied
    }
}
