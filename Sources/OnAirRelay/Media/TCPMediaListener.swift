import Glibc
import NIOCore
import NIOPosix
import OnAirForwarding
import OnAirWire

/// A media worker's passive ICE-TCP port (RFC 6544 §4.1: the relay offers `tcptype passive`
/// candidates, since browsers gather active ones only). Bound at init so that the port is
/// known and a conflict fails the start; connections are accepted on the worker's own loop
/// (``start(engine:)``), each a ``TCPMediaConnection``.
final class TCPMediaListener: @unchecked Sendable {
    // @unchecked: `channel` is written once by `start` before any other use.
    let localPort: Int
    private let fd: Int32
    private var channel: Channel?

    /// Creates, binds and listens (port 0 = any free port); nothing is accepted until ``start``.
    init(host: String, port: Int) throws {
        guard let address = TransportAddress(host: host, port: UInt16(clamping: port)) else {
            throw UDPMediaSocket.BindError(description: "media bind address '\(host)' is not an IP address")
        }
        let destination = DatagramDestination(address)
        let fd = socket(address.isIPv4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw UDPMediaSocket.BindError(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = destination.storage
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, destination.length) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw UDPMediaSocket.BindError(description: "cannot listen on TCP \(address): \(reason)")
        }
        self.fd = fd
        localPort = UDPMediaSocket.boundPort(fd)
    }

    /// Accepts connections on `engine`'s loop, into its ``MediaTransports``.
    func start(engine: RelayEngine) async throws {
        let limits = engine.transports.limits
        channel = try await ServerBootstrap(group: engine.loop, childGroup: engine.loop)
            .serverChannelOption(.backlog, value: 1024)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // The kernel keeps at most this much unsent: the rest waits in the connection's
            // queue, whose fill the plane reads before each new frame (TCPMediaConnection.hasRoom).
            .childChannelOption(ChannelOptions.Types.SocketOption(level: .init(rawValue: CInt(IPPROTO_TCP)), name: .init(rawValue: 25 /* TCP_NOTSENT_LOWAT */)),
                                value: SocketOptionValue(limits.writeChunkBytes))
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 1, high: 1))
            .childChannelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 8 * 1024))
            .childChannelInitializer { [unowned engine] channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let remote = channel.remoteAddress, var address = TransportAddress(remote) else {
                        throw ChannelError.inappropriateOperationForState
                    }
                    address.transport = .tcp
                    let connection = TCPMediaConnection(address: address, engine: engine, limits: limits)
                    guard engine.transports.accept(connection) else { throw ChannelError.inappropriateOperationForState }
                    try channel.pipeline.syncOperations.addHandler(connection)
                }
            }
            .withBoundSocket(fd)
            .get()
    }

    /// Closes the socket of a start that failed before ``start`` ran.
    func closeUnstarted() {
        if channel == nil { Glibc.close(fd) }
    }

    func close() async {
        if let channel {
            try? await channel.close()
        } else {
            Glibc.close(fd)
        }
    }
}
