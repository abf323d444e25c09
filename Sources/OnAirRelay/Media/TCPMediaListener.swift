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

    /// This listener's index among its worker's: the ``TransportAddress/base`` of its peers.
    let base: UInt8

    /// Creates, binds and listens (port 0 = any free port); nothing is accepted until ``start``.
    init(address: TransportAddress, base: UInt8 = 0) throws {
        let fd = try BoundSocket.open(address, type: Int32(SOCK_STREAM.rawValue))
        guard listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw BoundSocket.BindError(description: "cannot listen on TCP \(address): \(reason)")
        }
        self.fd = fd
        self.base = base
        localPort = BoundSocket.port(fd)
    }

    /// Accepts connections on `engine`'s loop, into its ``MediaTransports``.
    func start(engine: RelayEngine) async throws {
        let limits = engine.transports.limits
        let base = base
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
                    address.base = base
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
