import CLiveSocket
import Glibc
import OnAirForwarding

/// Queues outgoing datagrams in a preallocated arena and sends them with one `sendmmsg(2)`
/// per batch: no allocation and no lock per packet. Confined to the media event loop.
///
/// Consecutive datagrams to the same destination become one message with UDP generic
/// segmentation offload (`UDP_SEGMENT`, Linux 4.18+): the kernel walks its UDP/IP send path
/// once for the whole run instead of once per datagram, which is most of what a fan-out
/// costs. A run holds datagrams of one size, and may end with one shorter datagram (the
/// kernel's rule: every segment but the last is exactly `gso_size` bytes).
///
/// A worker with several sockets (one per address of `media.bind`) has one sender for all: a
/// datagram leaves from the socket its destination's peer was seen on (its
/// ``TransportAddress/base``), and a flush makes one `sendmmsg` per run of messages that share
/// a socket.
///
/// When the socket's send buffer is full (EAGAIN) the rest of the batch is dropped and
/// counted: a relay that cannot keep up must shed load, never queue without bound.
public final class BatchedDatagramSender: DatagramSink, @unchecked Sendable {
    // @unchecked: used only on the media socket's event loop thread.
    public static let slotSize = 1500
    /// Segments per GSO send: the kernel's UDP_MAX_SEGMENTS was 64 before Linux 6.4.
    static let maxSegmentsPerRun = 64
    /// Payload bytes per GSO send: one IP datagram's limit (64 KiB) less headers, with margin.
    static let maxBytesPerRun = 60_000
    /// Segments above this size are sent one by one: GSO refuses (EINVAL) a `gso_size` that
    /// the path MTU would fragment, and 1,400 bytes fits every Ethernet path with room for
    /// IPv6 and tunnel headers. WebRTC media stays under ~1,200 bytes anyway.
    static let maxSegmentSize = 1400

    /// Datagram slots (and so datagrams per `flush`).
    public let capacity: Int

    /// The sockets, by base.
    private let fds: [Int32]
    private let arena: UnsafeMutableRawPointer
    private let iovecs: UnsafeMutablePointer<iovec>
    private let messages: UnsafeMutablePointer<clive_mmsghdr>
    private let addresses: UnsafeMutablePointer<sockaddr_storage>
    /// Each message's socket (an index into ``fds``).
    private let messageSockets: UnsafeMutablePointer<Int>
    private let controls: UnsafeMutableRawPointer
    private let controlSize: Int
    /// Datagrams (slots) and messages queued.
    private var slotCount = 0
    private var messageCount = 0
    /// Whether the last message can still take a datagram, and the size its segments have.
    private var runOpen = false
    private var runSegmentSize = 0
    private var runBytes = 0

    /// Whether runs are sent with GSO; off when the kernel lacks it or `useSegmentation` was
    /// false, and switched off if the kernel keeps refusing segmented sends.
    public private(set) var segmentationEnabled: Bool

    /// Datagrams handed to the kernel.
    public private(set) var sent: UInt64 = 0
    /// Datagrams dropped because the kernel would not take them (EAGAIN/ENOBUFS) or failed.
    public private(set) var dropped: UInt64 = 0
    /// `sendmmsg` calls made (sent / calls = average batch).
    public private(set) var calls: UInt64 = 0
    /// Messages sent (sent / messages = average GSO run).
    public private(set) var messagesSent: UInt64 = 0
    /// Segmented sends the kernel refused (EINVAL/EIO) that went out one datagram at a time.
    public private(set) var segmentationFallbacks: UInt64 = 0

    public convenience init(fd: Int32, capacity: Int = 512, useSegmentation: Bool = true) {
        self.init(fds: [fd], capacity: capacity, useSegmentation: useSegmentation)
    }

    /// A sender for `fds` (at least one), a destination of base `i` leaving from `fds[i]`.
    public init(fds: [Int32], capacity: Int = 512, useSegmentation: Bool = true) {
        precondition(!fds.isEmpty, "a sender needs a socket")
        self.fds = fds
        self.capacity = capacity
        arena = UnsafeMutableRawPointer.allocate(byteCount: capacity * Self.slotSize, alignment: 16)
        iovecs = .allocate(capacity: capacity)
        messages = .allocate(capacity: capacity)
        addresses = .allocate(capacity: capacity)
        messageSockets = .allocate(capacity: capacity)
        messageSockets.initialize(repeating: 0, count: capacity)
        controlSize = clive_gso_control_size()
        controls = UnsafeMutableRawPointer.allocate(byteCount: capacity * controlSize, alignment: 8)
        controls.initializeMemory(as: UInt8.self, repeating: 0, count: capacity * controlSize)
        iovecs.initialize(repeating: iovec(), count: capacity)
        messages.initialize(repeating: clive_mmsghdr(), count: capacity)
        addresses.initialize(repeating: sockaddr_storage(), count: capacity)
        segmentationEnabled = useSegmentation && fds.allSatisfy { clive_udp_gso_supported($0) != 0 }
    }

    deinit {
        arena.deallocate()
        iovecs.deallocate()
        messages.deallocate()
        addresses.deallocate()
        messageSockets.deallocate()
        controls.deallocate()
    }

    /// The next free slot to build a datagram in (``slotSize`` bytes). Follow with
    /// ``commit(length:to:)``; a slot that is not committed is simply reused.
    @inline(__always)
    public func nextSlot() -> UnsafeMutableRawBufferPointer {
        if slotCount == capacity { flush() }
        return UnsafeMutableRawBufferPointer(start: arena + slotCount * Self.slotSize, count: Self.slotSize)
    }

    /// Queues the datagram built in the current slot: appended to the open run when it goes
    /// to the same destination and fits, else as a message of its own.
    @inline(__always)
    public func commit(length: Int, to destination: DatagramDestination) {
        iovecs[slotCount] = iovec(iov_base: arena + slotCount * Self.slotSize, iov_len: length)
        slotCount += 1
        if runOpen && length <= runSegmentSize && runBytes + length <= Self.maxBytesPerRun
            && isLastDestination(destination) {
            extendRun(length: length)
            return
        }
        let index = messageCount
        addresses[index] = destination.storage
        messageSockets[index] = Int(destination.address.base) < fds.count ? Int(destination.address.base) : 0
        messages[index].msg_hdr = msghdr(
            msg_name: UnsafeMutableRawPointer(addresses + index), msg_namelen: destination.length,
            msg_iov: iovecs + (slotCount - 1), msg_iovlen: 1,
            msg_control: nil, msg_controllen: 0, msg_flags: 0)
        messageCount += 1
        runOpen = segmentationEnabled && length <= Self.maxSegmentSize
        runSegmentSize = length
        runBytes = length
    }

    @inline(__always)
    private func isLastDestination(_ destination: DatagramDestination) -> Bool {
        let last = messages[messageCount - 1].msg_hdr
        guard last.msg_namelen == destination.length,
              messageSockets[messageCount - 1] == Int(destination.address.base) else { return false }
        return withUnsafeBytes(of: destination.storage) { memcmp($0.baseAddress!, last.msg_name, Int(destination.length)) == 0 }
    }

    @inline(__always)
    private func extendRun(length: Int) {
        let index = messageCount - 1
        let segments = messages[index].msg_hdr.msg_iovlen + 1
        messages[index].msg_hdr.msg_iovlen = segments
        if segments == 2 {
            let control = controls + index * controlSize
            clive_write_gso_control(control, UInt16(runSegmentSize))
            messages[index].msg_hdr.msg_control = control
            messages[index].msg_hdr.msg_controllen = controlSize
        }
        runBytes += length
        // A shorter datagram can only be a run's last; the kernel caps segments per send.
        if length < runSegmentSize || segments >= Self.maxSegmentsPerRun { runOpen = false }
    }

    /// Copies `bytes` into a slot and queues it (for control traffic: STUN, DTLS, RTCP).
    public func enqueue(_ bytes: [UInt8], to destination: DatagramDestination) {
        guard bytes.count <= Self.slotSize else { dropped += 1; return }
        let slot = nextSlot()
        bytes.withUnsafeBytes { slot.copyMemory(from: $0) }
        commit(length: bytes.count, to: destination)
    }

    /// Datagrams queued.
    public var pending: Int { slotCount }

    /// Sends everything queued: one `sendmmsg` per run of messages on one socket.
    public func flush() {
        var offset = 0
        while offset < messageCount {
            let socket = messageSockets[offset]
            var end = offset + 1
            while end < messageCount && messageSockets[end] == socket { end += 1 }
            send(offset..<end, on: fds[socket])
            offset = end
        }
        slotCount = 0
        messageCount = 0
        runOpen = false
    }

    private func send(_ range: Range<Int>, on fd: Int32) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let result = clive_sendmmsg(fd, messages + offset, UInt32(range.upperBound - offset), Int32(MSG_DONTWAIT))
            calls += 1
            if result > 0 {
                for index in offset..<(offset + Int(result)) { sent += UInt64(messages[index].msg_hdr.msg_iovlen) }
                messagesSent += UInt64(result)
                offset += Int(result)
                continue
            }
            let error = clive_errno()
            if error == EINTR { continue }
            let segments = Int(messages[offset].msg_hdr.msg_iovlen)
            if segments > 1 && (error == EINVAL || error == EIO) {
                sendSeparately(messages[offset].msg_hdr, on: fd)
            } else {
                // EAGAIN/ENOBUFS: the kernel is full, shed this message. Any other error
                // (ECONNREFUSED from an ICMP, EINVAL for a bad address) concerns one peer: skip it.
                dropped += UInt64(segments)
            }
            offset += 1
        }
    }

    /// Sends a run the kernel would not segment (a device without checksum offload, a path
    /// MTU below the segment size) one datagram at a time; after repeated refusals, stops
    /// forming runs at all.
    private func sendSeparately(_ message: msghdr, on fd: Int32) {
        segmentationFallbacks += 1
        if segmentationFallbacks >= 64 { segmentationEnabled = false }
        for index in 0..<Int(message.msg_iovlen) {
            var single = message
            single.msg_iov = message.msg_iov + index
            single.msg_iovlen = 1
            single.msg_control = nil
            single.msg_controllen = 0
            let result = withUnsafePointer(to: &single) { sendmsg(fd, $0, Int32(MSG_DONTWAIT)) }
            calls += 1
            if result >= 0 {
                sent += 1
                messagesSent += 1
            } else {
                dropped += 1
            }
        }
    }
}
