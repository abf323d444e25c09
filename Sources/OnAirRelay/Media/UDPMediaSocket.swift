import Glibc
import NIOCore
import NIOPosix
import OnAirForwarding
import OnAirWire

/// Receives every datagram of the shared UDP media port and hands it, on the socket's event
/// loop, to a ``DatagramReceiver``.
public protocol DatagramReceiver: AnyObject {
    /// Called on the socket's event loop for every datagram, in arrival order.
    func receive(_ datagram: ByteBuffer, from address: TransportAddress, now: MonoTime)
    /// Called once per batch of reads, when the kernel has nothing more queued: the moment to
    /// flush batched writes.
    func readBatchComplete()
}

/// One UDP socket of a media worker, shared by every WebRTC session of the worker that reaches
/// its address (one per address of `media.bind`). We create and bind the socket ourselves so
/// that we keep its descriptor: SwiftNIO reads it (recvmmsg, event-driven), and the media path
/// writes it with our own allocation-free `sendmmsg` batches (``BatchedDatagramSender``, one
/// per worker for all its sockets) from the same event loop thread.
public final class UDPMediaSocket: @unchecked Sendable {
    // @unchecked: `channel` is written once by `start` before any other use.
    public let localPort: Int
    let fd: Int32
    /// This socket's index among its worker's: the ``TransportAddress/base`` of its peers.
    let base: UInt8
    private var channel: Channel?

    /// Creates and binds the socket (port 0 = any free port). Nothing is read until ``start``.
    public init(address: TransportAddress, base: UInt8 = 0) throws {
        fd = try BoundSocket.open(address, type: Int32(SOCK_DGRAM.rawValue)) { fd in
            // Large kernel buffers absorb a keyframe burst to many viewers; the kernel caps
            // them at net.core.{r,w}mem_max, which is fine.
            var bufferSize: Int32 = 8 * 1024 * 1024
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        }
        self.base = base
        localPort = BoundSocket.port(fd)
    }

    /// Starts reading on `loop`, delivering every datagram to `receiver` on that loop.
    public func start(on loop: EventLoop, receiver: DatagramReceiver & Sendable) async throws {
        let base = base
        let bootstrap = DatagramBootstrap(group: loop)
            .channelOption(.datagramVectorReadMessageCount, value: 32)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 32 * 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundHandler(receiver: receiver, base: base))
                }
            }
        channel = try await bootstrap.withBoundSocket(fd).get()
    }

    /// Closes the socket of a start that failed before ``start`` ran.
    func closeUnstarted() {
        if channel == nil { Glibc.close(fd) }
    }

    public func close() async {
        if let channel {
            try? await channel.close()
        } else {
            Glibc.close(fd)
        }
    }

    private final class InboundHandler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let receiver: DatagramReceiver
        let base: UInt8

        init(receiver: DatagramReceiver, base: UInt8) {
            self.receiver = receiver
            self.base = base
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            guard var address = TransportAddress(envelope.remoteAddress) else { return }
            address.base = base
            receiver.receive(envelope.data, from: address, now: MonoTime.now())
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            receiver.readBatchComplete()
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            // ICMP port-unreachable from a vanished peer surfaces here; the session's consent
            // timer deals with the peer, and the shared socket stays open.
        }
    }
}

extension TransportAddress {
    /// Converts a NIO socket address (IPv4 or IPv6) to the core's transport address.
    public init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self.init(ip: .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr)), port: UInt16(bigEndian: v4.address.sin_port))
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            self.init(ip: .v6(withUnsafeBytes(of: &raw) { IPv6Address(networkBytes: $0) }), port: UInt16(bigEndian: v6.address.sin6_port))
        default:
            return nil
        }
    }
}
