import OnAirForwarding
import OnAirWire

/// Where a media worker's datagrams go: to UDP peers through the worker's socket (batched,
/// ``BatchedDatagramSender``), to ICE-TCP peers into their connection's queue
/// (``TCPMediaConnection``). Every packet is built in a UDP slot; one for a TCP peer is copied
/// from there into its connection's queue, and the slot is used again. Confined to the
/// worker's event loop.
final class MediaTransports: DatagramSink, @unchecked Sendable {
    // @unchecked: used only on the worker's event loop.
    let udp: BatchedDatagramSender
    let limits: TCPMediaLimits
    /// The worker's TCP connections, by their peer's address (transport `.tcp`).
    private(set) var connections: [TransportAddress: TCPMediaConnection] = [:]
    /// Connections with packets queued since the last flush.
    private var toPush: [TCPMediaConnection] = []
    /// The slot ``nextSlot()`` gave last.
    private var slot = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// TCP connections accepted, refused (over the cap), closed unauthenticated at the connect
    /// timeout or for sending too much, and packets dropped by queues at their hard limit.
    private(set) var tcpAccepted: UInt64 = 0
    private(set) var tcpRefused: UInt64 = 0
    var tcpTimedOut: UInt64 = 0
    var tcpOverLimit: UInt64 = 0
    private var closedDropped: UInt64 = 0

    init(udp: BatchedDatagramSender, limits: TCPMediaLimits) {
        self.udp = udp
        self.limits = limits
        toPush.reserveCapacity(64)
    }

    // MARK: DatagramSink

    @inline(__always)
    func nextSlot() -> UnsafeMutableRawBufferPointer {
        slot = udp.nextSlot()
        return slot
    }

    @inline(__always)
    func commit(length: Int, to destination: DatagramDestination) {
        guard destination.address.transport == .tcp else {
            udp.commit(length: length, to: destination)
            return
        }
        enqueue(UnsafeRawBufferPointer(rebasing: slot[0..<length]), to: destination.address)
    }

    func enqueue(_ bytes: [UInt8], to destination: DatagramDestination) {
        guard destination.address.transport == .tcp else {
            udp.enqueue(bytes, to: destination)
            return
        }
        bytes.withUnsafeBytes { enqueue($0, to: destination.address) }
    }

    func flush() {
        udp.flush()
        guard !toPush.isEmpty else { return }
        for connection in toPush {
            connection.awaitingPush = false
            connection.push()
        }
        toPush.removeAll(keepingCapacity: true)
    }

    func transportAuthenticated(_ address: TransportAddress) {
        connections[address]?.authenticate()
    }

    func releaseTransport(_ address: TransportAddress) {
        connections[address]?.closeWhenSent()
    }

    func hasRoom(for destination: DatagramDestination) -> Bool {
        connections[destination.address]?.hasRoom ?? true
    }

    private func enqueue(_ packet: UnsafeRawBufferPointer, to address: TransportAddress) {
        guard let connection = connections[address], connection.enqueue(packet) else { return }
        if !connection.awaitingPush {
            connection.awaitingPush = true
            toPush.append(connection)
        }
    }

    // MARK: connections

    /// Takes a new connection, or refuses it (false) when the worker has its maximum.
    func accept(_ connection: TCPMediaConnection) -> Bool {
        guard connections.count < limits.maximumConnections else {
            tcpRefused &+= 1
            return false
        }
        tcpAccepted &+= 1
        connections[connection.address] = connection
        return true
    }

    /// A connection closed: forgotten, and its session told.
    func closed(_ connection: TCPMediaConnection) {
        guard connections[connection.address] === connection else { return }
        connections[connection.address] = nil
        closedDropped &+= connection.droppedPackets
        toPush.removeAll { $0 === connection }
    }

    /// Updates each connection's queue budget (the worker's timer, every 20 ms).
    func tick(now: MonoTime) {
        for connection in connections.values where connection.authenticated { connection.updateBudget(now: now) }
    }

    /// Closes every connection (the worker stops).
    func closeAll() {
        for connection in connections.values { connection.close() }
    }

    /// Packets dropped by TCP queues at their hard limit, closed connections included.
    var tcpDropped: UInt64 {
        connections.values.reduce(closedDropped) { $0 &+ $1.droppedPackets }
    }
}
