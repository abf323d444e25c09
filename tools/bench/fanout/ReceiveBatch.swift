import CLiveSocket
import Glibc
import OnAirWire

/// Preallocated buffers for `recvmmsg(2)`: up to ``capacity`` datagrams per call, each with its
/// source address and SO_TIMESTAMPNS control message. Shared by every socket the loop reads, so
/// receiving allocates nothing.
final class ReceiveBatch {
    static let datagramSize = 1536
    static let controlSize = 64
    let capacity: Int
    private let data: UnsafeMutableRawPointer
    private let control: UnsafeMutableRawPointer
    private let messages: UnsafeMutablePointer<clive_mmsghdr>
    private let iovecs: UnsafeMutablePointer<iovec>
    private let addresses: UnsafeMutablePointer<sockaddr_in>
    /// The source of every packet of the last ``receive(from:)-(TCPStream)``; nil after a UDP read.
    private var streamSource: TransportAddress?

    init(capacity: Int = 64) {
        self.capacity = capacity
        data = .allocate(byteCount: capacity * Self.datagramSize, alignment: 16)
        control = .allocate(byteCount: capacity * Self.controlSize, alignment: 16)
        messages = .allocate(capacity: capacity)
        iovecs = .allocate(capacity: capacity)
        addresses = .allocate(capacity: capacity)
        messages.initialize(repeating: clive_mmsghdr(), count: capacity)
        addresses.initialize(repeating: sockaddr_in(), count: capacity)
        for i in 0..<capacity {
            iovecs[i] = iovec(iov_base: data + i * Self.datagramSize, iov_len: Self.datagramSize)
        }
    }

    deinit {
        data.deallocate()
        control.deallocate()
        messages.deallocate()
        iovecs.deallocate()
        addresses.deallocate()
    }

    /// Reads what `fd` has queued, up to ``capacity`` datagrams, without blocking. Returns the
    /// count (0 when nothing was queued).
    func receive(from fd: Int32) -> Int {
        for i in 0..<capacity {
            // The kernel overwrites the lengths; reset them for every call.
            messages[i].msg_hdr = msghdr(
                msg_name: UnsafeMutableRawPointer(addresses + i), msg_namelen: socklen_t(MemoryLayout<sockaddr_in>.size),
                msg_iov: iovecs + i, msg_iovlen: 1,
                msg_control: control + i * Self.controlSize, msg_controllen: Self.controlSize, msg_flags: 0)
            messages[i].msg_len = 0
        }
        let count = clive_recvmmsg(fd, messages, UInt32(capacity), Int32(MSG_DONTWAIT), nil)
        streamSource = nil
        return count > 0 ? Int(count) : 0
    }

    /// Takes up to ``capacity`` complete packets that arrived on `stream`, each into a slot.
    func receive(from stream: TCPStream) -> Int {
        var count = 0
        while count < capacity, let length = stream.nextFrame(into: slot(count)) {
            messages[count].msg_len = UInt32(length)
            messages[count].msg_hdr.msg_controllen = 0
            count += 1
        }
        streamSource = stream.remote
        return count
    }

    @inline(__always)
    func length(_ i: Int) -> Int { Int(messages[i].msg_len) }

    /// The datagram's bytes, writable (decrypted in place when sampled).
    @inline(__always)
    func bytes(_ i: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: data + i * Self.datagramSize, count: length(i))
    }

    /// Room for the whole slot (in-place unprotect needs only `length`, but callers may want more).
    @inline(__always)
    func slot(_ i: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: data + i * Self.datagramSize, count: Self.datagramSize)
    }

    func source(_ i: Int) -> TransportAddress {
        if let streamSource { return streamSource }
        let address = addresses[i]
        return TransportAddress(ip: .v4(UInt32(bigEndian: address.sin_addr.s_addr)), port: UInt16(bigEndian: address.sin_port))
    }

    /// The SCM_TIMESTAMPNS arrival time (CLOCK_REALTIME ns), if the socket asked for it. Parsed
    /// by hand since CMSG_FIRSTHDR/CMSG_DATA are macros: on Linux x86-64 a `cmsghdr` is
    /// {size_t len; int level; int type} (16 bytes) and the data follows, 8-byte aligned.
    @inline(__always)
    func kernelTimestamp(_ i: Int) -> UInt64? {
        let length = Int(messages[i].msg_hdr.msg_controllen)
        guard length >= 32 else { return nil }
        let base = UnsafeRawPointer(control + i * Self.controlSize)
        let level = base.load(fromByteOffset: 8, as: Int32.self)
        let type = base.load(fromByteOffset: 12, as: Int32.self)
        guard level == SOL_SOCKET, type == SCM_TIMESTAMPNS else { return nil }
        let seconds = base.load(fromByteOffset: 16, as: Int.self)
        let nanoseconds = base.load(fromByteOffset: 24, as: Int.self)
        return UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
    }
}
