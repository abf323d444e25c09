import OnAirWire

/// Where the media plane's datagrams go: built in place in a slot (no copy, no allocation
/// per packet) and committed, then sent together on ``flush()``. The relay's is a
/// `sendmmsg(2)` batch on its UDP socket; tests keep what is sent.
package protocol DatagramSink: AnyObject {
    /// A slot of at least 1,500 bytes to build the next datagram in.
    func nextSlot() -> UnsafeMutableRawBufferPointer
    /// Queues the first `length` bytes of the current slot to `destination`.
    func commit(length: Int, to destination: DatagramDestination)
    /// Copies `bytes` into a slot and queues them (control traffic: STUN, DTLS, RTCP).
    func enqueue(_ bytes: [UInt8], to destination: DatagramDestination)
    /// Sends what is queued.
    func flush()
    /// A session authenticated the peer at `address` (a TCP connection's STUN check passed,
    /// RFC 6544 §7.1): the connection is a session's from now on.
    func transportAuthenticated(_ address: TransportAddress)
    /// The session that authenticated `address` ended: its TCP connection closes once what is
    /// queued for it has been sent.
    func releaseTransport(_ address: TransportAddress)
    /// Whether the queue towards `destination` has room for another frame: false while a TCP
    /// connection's queue holds more than its budget (about 250 ms of what it carries). UDP
    /// has no queue of ours: always true.
    func hasRoom(for destination: DatagramDestination) -> Bool
}

extension DatagramSink {
    /// UDP only: nothing to do.
    package func transportAuthenticated(_ address: TransportAddress) {}
    package func releaseTransport(_ address: TransportAddress) {}
    package func hasRoom(for destination: DatagramDestination) -> Bool { true }
}
