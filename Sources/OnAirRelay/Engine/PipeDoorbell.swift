#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import NIOCore
import NIOPosix
import OnAirForwarding

/// Wakes an event loop when another thread has published into a ring it reads and sleeps
/// on (the LL-HLS loop's ``MediaTapRing``s, a media worker's ``StreamFeed``s): a byte written
/// to a pipe whose read end the loop watches. A write is one system call and allocates
/// nothing, unlike scheduling a task on the loop; a full pipe means a wake is already
/// pending, so the write may fail.
final class PipeDoorbell: TapWakeup, @unchecked Sendable {
    // @unchecked: `writeEnd` never changes after init; write(2) is thread-safe.
    private let writeEnd: Int32
    /// The pipe's read end, owned by the channel once ``watch(on:onRing:)`` ran.
    private let readEnd: Int32

    init() throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw IOError(errnoCode: errno, reason: "pipe for a doorbell") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit { close(writeEnd) }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Watches the read end on `loop`; `onRing` runs there after every wake (the bytes are
    /// discarded).
    func watch(on loop: EventLoop, onRing: @escaping @Sendable () -> Void) async throws -> Channel {
        try await NIOPipeBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(RingHandler(onRing: onRing)) }
            }
            .takingOwnershipOfDescriptor(input: readEnd)
            .get()
    }

    private final class RingHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let onRing: @Sendable () -> Void
        init(onRing: @escaping @Sendable () -> Void) { self.onRing = onRing }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
        func channelReadComplete(context: ChannelHandlerContext) { onRing() }
    }
}
