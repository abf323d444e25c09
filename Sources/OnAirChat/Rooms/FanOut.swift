import NIOCore

/// The sockets of one room grouped by event loop, so that a message costs one task hop per
/// event loop (not per client): every socket of a group is written inside one
/// `EventLoop.execute`, in a plain loop with the same bytes. Owned by the room's worker
/// task alone (not Sendable on purpose).
struct FanOut {
    private struct Group {
        let flusher: LoopFlusher
        var writers: [RawFrameWriter] = []
        var ids: [UInt64] = []
    }

    private var groups: [ObjectIdentifier: Group] = [:]
    /// Where each member sits: its group and index, for O(1) removal (swap with the last).
    private var places: [UInt64: (group: ObjectIdentifier, index: Int)] = [:]

    var count: Int { places.count }

    mutating func add(_ outlet: ChatOutlet) {
        guard places[outlet.id] == nil else { return }
        let key = ObjectIdentifier(outlet.eventLoop)
        var group = groups[key] ?? Group(flusher: LoopFlusher(loop: outlet.eventLoop))
        places[outlet.id] = (key, group.writers.count)
        group.writers.append(outlet.frameWriter)
        group.ids.append(outlet.id)
        groups[key] = group
    }

    mutating func remove(_ id: UInt64) {
        guard let place = places.removeValue(forKey: id), var group = groups[place.group] else { return }
        let lastIndex = group.writers.count - 1
        if place.index != lastIndex {
            group.writers[place.index] = group.writers[lastIndex]
            group.ids[place.index] = group.ids[lastIndex]
            places[group.ids[place.index]] = (place.group, place.index)
        }
        group.writers.removeLast()
        group.ids.removeLast()
        groups[place.group] = group.writers.isEmpty ? nil : group
    }

    /// Sends `wire` (one finished WebSocket message) to every member.
    func broadcast(_ wire: ByteBuffer) {
        var first = true
        for group in groups.values {
            let writers = group.writers
            let flusher = group.flusher
            // Each event loop gets its own copy of the bytes (a memcpy per loop, not per
            // client): thousands of retains and releases of one buffer from two threads would
            // bounce its reference count's cache line between cores.
            let bytes = first ? wire : ByteBuffer(bytes: wire.readableBytesView)
            first = false
            flusher.loop.execute { flusher.write(bytes, to: writers) }
        }
    }
}

/// Flushes a room's sockets on one event loop once per burst instead of once per message:
/// a broadcast writes (in order) and asks for a flush task; broadcasts already queued on the
/// loop run before that task, so under load several messages leave in one syscall per
/// socket, and when idle the flush follows at once.
final class LoopFlusher: @unchecked Sendable {
    // `waiting` is read and written only on `loop` (inside tasks executed there).
    let loop: any EventLoop
    private var waiting: [[RawFrameWriter]] = []

    init(loop: any EventLoop) { self.loop = loop }

    /// On `loop`: writes `wire` to every outlet without flushing, and schedules the flush.
    func write(_ wire: ByteBuffer, to writers: [RawFrameWriter]) {
        for writer in writers { writer.write(wire, flush: false) }
        waiting.append(writers)
        if waiting.count == 1 { loop.execute { self.flush() } }
    }

    private func flush() {
        let batches = waiting
        waiting = []
        // Usually one batch; a socket in several is flushed again for nothing (no syscall).
        for writers in batches {
            for writer in writers { writer.flush() }
        }
    }
}
