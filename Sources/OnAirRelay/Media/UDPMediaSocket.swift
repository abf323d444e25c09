import CLiveSocket
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

/// The single UDP socket that serves every WebRTC session. We create and bind the socket
/// ourselves so that we keep its descriptor: SwiftNIO reads it (recvmmsg, event-driven), and
/// the media path writes it with our own allocation-free `sendmmsg` batches
/// (``BatchedDatagramSender``) from the same event loop thread.
public final class UDPMediaSocket: @unchecked Sendable {
    // @unchecked: `channel` is written once by `start` before any other use; the sender is
    // used only on the event loop the socket was started on.
    public let sender: BatchedDatagramSender
    public let localPort: Int
    private let fd: Int32
    private var channel: Channel?

    public struct BindError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates and binds the socket (port 0 = any free port). Nothing is read until ``start``.
    public init(host: String, port: Int) throws {
        guard let address = TransportAddress(host: host, port: UInt16(clamping: port)) else {
            throw BindError(description: "media bind address '\(host)' is not an IP address")
        }
        fd = try Self.openSocket(address)
        sender = BatchedDatagramSender(fd: fd)
        localPort = Self.boundPort(fd)
    }

    /// Starts reading on `loop`, delivering every datagram to `receiver` on that loop.
    public func start(on loop: EventLoop, receiver: DatagramReceiver & Sendable) async throws {
        let bootstrap = DatagramBootstrap(group: loop)
            .channelOption(.datagramVectorReadMessageCount, value: 32)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 32 * 2048))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(InboundHandler(receiver: receiver))
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

    static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return 0 }
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset (2), in network order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
    }

    private static func openSocket(_ address: TransportAddress) throws -> Int32 {
        let destination = DatagramDestination(address)
        let family = address.isIPv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw BindError(description: "socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        var bufferSize: Int32 = 8 * 1024 * 1024
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        // Large kernel buffers absorb a keyframe burst to many viewers; the kernel caps them
        // at net.core.{r,w}mem_max, which is fine.
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        var storage = destination.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, destination.length) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw BindError(description: "cannot bind UDP \(address): \(reason)")
        }
        return fd
    }

    private final class InboundHandler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let receiver: DatagramReceiver

        init(receiver: DatagramReceiver) { self.receiver = receiver }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            guard let address = TransportAddress(envelope.remoteAddress) else { return }
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
