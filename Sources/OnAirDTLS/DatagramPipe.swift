import CLiveOpenSSL

/// The datagram boundary between OpenSSL and a sans-I/O ``DTLSEndpoint``, exposed to OpenSSL as
/// a custom `BIO`.
///
/// Why not two memory BIOs: a memory BIO concatenates everything written to it, so a flight
/// comes out as one blob that may exceed the MTU and cannot be split at record boundaries
/// without parsing it again. OpenSSL's DTLS layer writes exactly one record per `BIO_write`
/// (each sized to the MTU we set), so a BIO whose write callback keeps every write as its own
/// record lets us build datagrams that never exceed the MTU. Reads keep datagram semantics too:
/// one `BIO_read` returns one received datagram, as a UDP socket would (RFC 6347 §4.1.1).
///
/// Not Sendable: owned by one endpoint and touched only from OpenSSL calls that endpoint makes.
final class DatagramPipe {
    /// Received datagrams not yet read by OpenSSL, oldest first.
    private var inbound: [[UInt8]] = []
    /// Records OpenSSL wrote since the last ``takeDatagrams(mtu:)``.
    private var outboundRecords: [[UInt8]] = []

    /// Queues one received datagram for the next `SSL_*` call to read.
    func push(_ datagram: [UInt8]) { inbound.append(datagram) }

    /// Forgets datagrams OpenSSL did not consume (e.g. after a failure).
    func discardInbound() { inbound.removeAll(keepingCapacity: true) }

    /// Packs the records written so far into datagrams of at most `mtu` bytes, keeping their
    /// order. Several records in one datagram are allowed by RFC 6347 §4.1.1 and save packets
    /// (a server's flight of five handshake messages usually fits in one or two datagrams).
    func takeDatagrams(mtu: Int) -> [[UInt8]] {
        guard !outboundRecords.isEmpty else { return [] }
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        for record in outboundRecords {
            if !current.isEmpty && current.count + record.count > mtu {
                datagrams.append(current)
                current = []
            }
            current += record
        }
        if !current.isEmpty { datagrams.append(current) }
        outboundRecords.removeAll(keepingCapacity: true)
        return datagrams
    }

    /// A new `BIO *` reading from and writing to this pipe. The BIO holds a strong reference
    /// to the pipe, released when OpenSSL frees the BIO (with its `SSL`).
    func makeBIO() -> OpaquePointer? {
        guard let method = Self.method.pointer, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passRetained(self).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }

    // MARK: - The BIO_METHOD

    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32? {
        guard !inbound.isEmpty else { return nil }
        let datagram = inbound.removeFirst()
        // Like recvfrom on a too-small buffer: the tail is lost, the boundary is kept.
        let count = min(datagram.count, capacity)
        datagram.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress!, byteCount: count)
        }
        return Int32(count)
    }

    fileprivate func write(_ bytes: UnsafeRawBufferPointer) {
        outboundRecords.append(Array(bytes))
    }

    fileprivate var pendingBytes: Int { inbound.reduce(0) { $0 + $1.count } }

    private static func pipe(of bio: OpaquePointer?) -> DatagramPipe? {
        guard let bio, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<DatagramPipe>.fromOpaque(data).takeUnretainedValue()
    }

    /// The process-wide `BIO_METHOD`, built once.
    private static let method = BIOMethodHandle()

    /// Owns the `BIO_METHOD *`. `@unchecked Sendable`: it is written once during lazy global
    /// initialisation (which Swift runs exactly once) and only read afterwards.
    private final class BIOMethodHandle: @unchecked Sendable {
        let pointer: OpaquePointer?

        init() {
            let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
            guard let method = BIO_meth_new(type, "OnAir DTLS datagram pipe") else {
                pointer = nil
                return
            }
            BIO_meth_set_write(method) { bio, data, length in
                guard let pipe = DatagramPipe.pipe(of: bio), let data, length >= 0 else { return -1 }
                BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
                pipe.write(UnsafeRawBufferPointer(start: data, count: Int(length)))
                return length
            }
            BIO_meth_set_read(method) { bio, buffer, capacity in
                guard let pipe = DatagramPipe.pipe(of: bio), let buffer, capacity > 0 else { return -1 }
                BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
                if let count = pipe.read(into: buffer, capacity: Int(capacity)) { return count }
                // Nothing queued: "try again later", which SSL_get_error reports as WANT_READ.
                BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
                return -1
            }
            BIO_meth_set_ctrl(method) { bio, command, _, _ in
                switch command {
                // DTLS flushes after every flight; failing it would abort the handshake.
                case BIO_CTRL_FLUSH: return 1
                case BIO_CTRL_PENDING: return DatagramPipe.pipe(of: bio).map { $0.pendingBytes } ?? 0
                case BIO_CTRL_WPENDING: return 0
                // No kernel to ask: the endpoint sets the MTU with DTLS_set_link_mtu and
                // SSL_OP_NO_QUERY_MTU, and the datagram carries no IP/UDP overhead here (0).
                default: return 0
                }
            }
            BIO_meth_set_create(method) { _ in 1 }
            BIO_meth_set_destroy(method) { bio in
                guard let bio else { return 0 }
                if let data = BIO_get_data(bio) {
                    Unmanaged<DatagramPipe>.fromOpaque(data).release()
                    BIO_set_data(bio, nil)
                }
                BIO_set_init(bio, 0)
                return 1
            }
            pointer = method
        }
    }
}
