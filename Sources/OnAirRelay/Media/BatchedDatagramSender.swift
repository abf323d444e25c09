import CLiveSocket
import Glibc

/// Queues outgoing datagrams in a preallocated arena and sends them with one `sendmmsg(2)`
/// per batch: no allocation and no lock per packet. Confined to the media event loop.
///
/// When the socket's send buffer is full (EAGAIN) the rest of the batch is dropped and
/// counted: a relay that cannot keep up must shed load, never queue without bound.
public final class BatchedDatagramSender: @unchecked Sendable {
    // @unchecked: used only on the media socket's event loop thread.
    public static let slotSize = 1500
    public let capacity: Int

    private let fd: Int32
    private let arena: UnsafeMutableRawPointer
    private let messages: UnsafeMutablePointer<clive_mmsghdr>
    private let iovecs: UnsafeMutablePointer<iovec>
    private let addresses: UnsafeMutablePointer<sockaddr_storage>
    private var count = 0

    /// Datagrams handed to the kernel.
    public private(set) var sent: UInt64 = 0
    /// Datagrams dropped because the kernel would not take them (EAGAIN/ENOBUFS) or failed.
    public private(set) var dropped: UInt64 = 0
    /// `sendmmsg` calls made (sent / calls = average batch).
    public private(set) var calls: UInt64 = 0

    public init(fd: Int32, capacity: Int = 256) {
        self.fd = fd
        self.capacity = capacity
        arena = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.slotSize, alignment: 16)
        messages = .allocate(capacity: capacity)
        iovecs = .allocate(capacity: capacity)
        addresses = .allocate(capacity: capacity)
        messages.initialize(repeating: clive_mmsghdr(), count: capacity)
        iovecs.initialize(repeating: iovec(), count: capacity)
        addresses.initialize(repeating: sockaddr_storage(), count: capacity)
    }

    deinit {
        arena.deallocate()
        messages.deallocate()
        iovecs.deallocate()
        addresses.deallocate()
    }

    /// The next free slot to build a datagram in (``slotSize`` bytes). Follow with
    /// ``commit(length:to:)``; a slot that is not committed is simply reused.
    @inline(__always)
    public func nextSlot() -> UnsafeMutableRawBufferPointer {
        if count == capacity { flush() }
        return UnsafeMutableRawBufferPointer(start: arena + count * Self.slotSize, count: Self.slotSize)
    }

    /// Queues the datagram built in the current slot.
    @inline(__always)
    public func commit(length: Int, to destination: DatagramDestination) {
        let slot = arena + count * Self.slotSize
        iovecs[count] = iovec(iov_base: slot, iov_len: length)
        addresses[count] = destination.storage
        messages[count].msg_hdr = msghdr(
            msg_name: UnsafeMutableRawPointer(addresses + count), msg_namelen: destination.length,
            msg_iov: iovecs + count, msg_iovlen: 1,
            msg_control: nil, msg_controllen: 0, msg_flags: 0)
        count += 1
    }

    /// Copies `bytes` into a slot and queues it (for control traffic: STUN, DTLS, RTCP).
    public func enqueue(_ bytes: [UInt8], to destination: DatagramDestination) {
        guard bytes.count <= Self.slotSize else { dropped += 1; return }
        let slot = nextSlot()
        bytes.withUnsafeBytes { slot.copyMemory(from: $0) }
        commit(length: bytes.count, to: destination)
    }

    public var pending: Int { count }

    /// Sends everything queued.
    public func flush() {
        var offset = 0
        while offset < count {
            let result = clive_sendmmsg(fd, messages + offset, UInt32(count - offset), Int32(MSG_DONTWAIT))
            calls += 1
            if result > 0 {
                sent += UInt64(result)
                offset += Int(result)
                continue
            }
            let error = clive_errno()
            if error == EINTR { continue }
            // EAGAIN/ENOBUFS: the kernel is full, shed this datagram. Any other error
            // (ECONNREFUSED from an ICMP, EINVAL for a bad address) concerns one datagram: skip it.
            dropped += 1
            offset += 1
        }
        count = 0
    }
}
