import OnAirRTP
import OnAirSDP
import OnAirWire
import Synchronization

/// How a stream published on one worker reaches its viewers on the others: a
/// single-producer, multi-consumer ring of fixed slots, allocated once. The publisher's
/// worker writes each admitted packet once into the next slot and publishes it with one
/// release store; every other worker with viewers of the stream reads the slots in place
/// (no copy per worker, no lock, no allocation per packet), fans them out to its own viewers
/// (its own SRTP, rewriting, NACK answers, estimates and layer choice) and then hands them
/// back by moving its ``FeedCursor``. A slot is written again only once every reading worker
/// has moved past it; a packet that finds the ring full (a worker more than ``capacity``
/// records behind) is dropped and counted, so forwarding never waits.
///
/// Upstream goes beside the slots: keyframe requests per layer (coalesced on the publisher's
/// worker with its own viewers'), the stream's end, and the viewer counts of each worker.
package final class StreamFeed: @unchecked Sendable {
    // @unchecked: the producer's fields are touched only by the publisher's worker; consumers
    // read slots only between the published index and their own cursor; the rest is atomic.

    package static let slotSize = 2_048
    /// Bytes of a slot before the packet (``FeedRecord``'s fixed fields).
    package static let headerSize = 32
    package static let maximumPacket = slotSize - headerSize

    package let room: String
    /// The publisher's session id (webhooks name it).
    package let publisherID: String
    /// The publisher's negotiated session, which viewers' answers are built against.
    package let negotiated: NegotiatedSession
    private let storage: SlotStorage
    private let published = Atomic<Int>(0)
    /// One per worker (the publisher's own stays inactive).
    private let cursors: [FeedCursor]
    /// Bit `layer`: a keyframe of that layer is wanted; bit `16 + layer`: promptly.
    private let keyframeRequests = Atomic<UInt32>(0)
    /// 1 + the index of the end reason in ``StreamEndReason/allCases``, once the stream ended.
    private let endCode = Atomic<Int>(0)
    private let droppedCount = Atomic<UInt64>(0)
    private let originViewers = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    private let otherBytesOut = Atomic<UInt64>(0)
    /// The publisher's worker's latest measurement of each layer, by its layer index.
    private let rates = Mutex([LayerRates](repeating: LayerRates(), count: StreamSource.maximumListedLayers))

    // Producer side.
    private var producerIndex = 0
    /// Records may be written up to here without looking at the cursors again.
    private var producerLimit = 0
    private var unannounced = false

    /// `wakeups`: each worker's doorbell, in worker order. `capacity`: slots (a power of two);
    /// 1,024 hold about two seconds of a three-layer simulcast stream with its audio.
    package init(room: String, publisherID: String, negotiated: NegotiatedSession, wakeups: [(any TapWakeup)?],
                 capacity: Int = 1_024) {
        self.negotiated = negotiated
        self.room = room
        self.publisherID = publisherID
        cursors = wakeups.map(FeedCursor.init(wakeup:))
        storage = SlotStorage(capacity: capacity, slotSize: Self.slotSize)
    }

    package var capacity: Int { storage.capacity }

    /// Records not written because some worker fell too far behind.
    package var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }

    // MARK: producer (the publisher's worker)

    /// A packet the room admitted (``Room/forward``), as it goes to the room's own viewers.
    @inline(__always)
    package func packet(_ kind: FeedRecord.Kind, raw: UnsafeRawBufferPointer, view: RTPPacketView, layer: Int, rank: Int,
                        keyframe: Bool, preamble: Bool, lead: UInt16, retransmission: Bool, switched: Bool, now: MonoTime) {
        guard raw.count <= Self.maximumPacket, let slot = nextSlot() else { return }
        let flags = (keyframe ? FeedRecord.keyframeFlag : 0) | (preamble ? FeedRecord.preambleFlag : 0)
            | (retransmission ? FeedRecord.retransmissionFlag : 0) | (switched ? FeedRecord.switchedFlag : 0)
        FeedRecord.write(kind, into: slot, raw: raw, view: view, layer: layer, rank: rank, flags: flags, lead: lead, now: now)
        publish()
    }

    /// RFC 3550 §6.4.1 sender report of video layer `layer`, or of the audio (-1).
    package func senderReport(layer: Int, ssrc: UInt32, ntp: NTPTime, rtpTimestamp: UInt32) {
        guard let slot = nextSlot() else { return }
        FeedRecord.writeSenderReport(into: slot, layer: layer, ssrc: ssrc, ntp: ntp, rtpTimestamp: rtpTimestamp)
        publish()
    }

    /// A packet of video layer `layer` the publisher's worker gave up repairing.
    package func loss(layer: Int, sequence: UInt16) {
        guard let slot = nextSlot() else { return }
        FeedRecord.writeLoss(into: slot, layer: layer, sequence: sequence)
        publish()
    }

    /// Wakes every reading worker that sleeps, if something was published since the last
    /// call: once per read batch, not per packet.
    package func announce() {
        guard unannounced else { return }
        unannounced = false
        // Pairs with the consumer's fence in ``sleep(consumer:)``: either it sees what was
        // published, or this sees it idle and rings.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        for cursor in cursors where cursor.active.load(ordering: .relaxed) {
            if cursor.idle.load(ordering: .sequentiallyConsistent), cursor.idle.exchange(false, ordering: .sequentiallyConsistent) {
                cursor.wakeup?.wake()
            }
        }
    }

    /// The stream ended: nothing follows what was published.
    package func finish(_ reason: StreamEndReason) {
        endCode.store(1 + (StreamEndReason.allCases.firstIndex(of: reason) ?? 0), ordering: .sequentiallyConsistent)
        unannounced = true
        announce()
    }

    /// The layers other workers want a keyframe of since the last call: (wanted, prompt) bit
    /// sets, bit `layer` each.
    @inline(__always)
    package func takeKeyframeRequests() -> (wanted: UInt32, prompt: UInt32)? {
        guard keyframeRequests.load(ordering: .relaxed) != 0 else { return nil }
        let bits = keyframeRequests.exchange(0, ordering: .acquiringAndReleasing)
        return (bits & 0xFFFF, bits >> 16)
    }

    /// The publisher's worker's own connected viewers.
    package func setOriginViewers(_ count: Int) {
        originViewers.store(count, ordering: .relaxed)
        notePeak()
    }

    /// The layers' rates as the publisher's worker measured them (once a second: a lock here
    /// is off the per-packet path).
    package func setLayerRates(_ layers: [ReceivedLayer]) {
        rates.withLock { rates in
            for index in rates.indices { rates[index] = index < layers.count ? LayerRates(layers[index]) : LayerRates() }
        }
    }

    /// The rates of layer `index` last measured by the publisher's worker (zero before any).
    package func layerRates(_ index: Int) -> LayerRates {
        rates.withLock { rates in rates.indices.contains(index) ? rates[index] : LayerRates() }
    }

    /// Octets sent to viewers on other workers so far.
    package var bytesOutElsewhere: UInt64 { otherBytesOut.load(ordering: .relaxed) }

    @inline(__always)
    private func nextSlot() -> UnsafeMutableRawBufferPointer? {
        if producerIndex >= producerLimit {
            // Only the workers reading count; one that attaches now starts at `published`,
            // which is past every slot this could overwrite (``attach(consumer:)``).
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            var oldest = producerIndex
            for cursor in cursors where cursor.active.load(ordering: .acquiring) {
                oldest = min(oldest, cursor.position.load(ordering: .acquiring))
            }
            producerLimit = oldest + capacity
            guard producerIndex < producerLimit else {
                droppedCount.add(1, ordering: .relaxed)
                return nil
            }
        }
        return storage.slot(producerIndex)
    }

    @inline(__always)
    private func publish() {
        producerIndex &+= 1
        published.store(producerIndex, ordering: .releasing)
        unannounced = true
    }

    // MARK: consumers (the other workers, each through its own index)

    /// Starts reading at the newest record: what was published before is not for this
    /// worker's viewers, who join now. Call on the worker `consumer`.
    package func attach(consumer: Int) {
        let cursor = cursors[consumer]
        cursor.position.store(published.load(ordering: .acquiring), ordering: .releasing)
        cursor.idle.store(false, ordering: .relaxed)
        cursor.active.store(true, ordering: .sequentiallyConsistent)
        // Pairs with the producer's fence in ``nextSlot()``: a limit it set without this
        // cursor lies within `capacity` of a published index this reads now.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        cursor.position.store(published.load(ordering: .sequentiallyConsistent), ordering: .releasing)
    }

    /// Stops reading: the producer no longer waits for this worker.
    package func detach(consumer: Int) {
        cursors[consumer].viewers.store(0, ordering: .relaxed)
        cursors[consumer].active.store(false, ordering: .releasing)
    }

    /// The records published past `consumer`'s position (at most `limit`): read them with
    /// ``record(at:)``; their slots stay as they are until ``release(consumer:through:)``.
    @inline(__always)
    package func unread(consumer: Int, limit: Int) -> Range<Int> {
        let start = cursors[consumer].position.load(ordering: .relaxed)
        let end = published.load(ordering: .acquiring)
        return start..<min(end, start + limit)
    }

    @inline(__always)
    package func record(at index: Int) -> FeedRecord {
        FeedRecord(storage.record(index))
    }

    /// Hands back every slot before `end`: `consumer` reads nothing in them any more.
    @inline(__always)
    package func release(consumer: Int, through end: Int) {
        cursors[consumer].position.store(end, ordering: .releasing)
    }

    /// Marks `consumer` asleep when it has read everything: true then (the producer rings it
    /// for the next record), false when more arrived meanwhile.
    package func sleep(consumer: Int) -> Bool {
        let cursor = cursors[consumer]
        cursor.idle.store(true, ordering: .sequentiallyConsistent)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if published.load(ordering: .sequentiallyConsistent) == cursor.position.load(ordering: .relaxed) { return true }
        cursor.idle.store(false, ordering: .sequentiallyConsistent)
        return false
    }

    /// Why the stream ended, once it did (read after every record was taken).
    package var endReason: StreamEndReason? {
        let code = endCode.load(ordering: .sequentiallyConsistent)
        return code == 0 ? nil : StreamEndReason.allCases[code - 1]
    }

    /// Whether `consumer` has taken every record published.
    package func isDrained(consumer: Int) -> Bool {
        published.load(ordering: .acquiring) == cursors[consumer].position.load(ordering: .relaxed)
    }

    /// A viewer on another worker wants a keyframe of `layer`.
    package func requestKeyframe(layer: Int, prompt: Bool) {
        guard (0..<16).contains(layer) else { return }
        keyframeRequests.bitwiseOr(UInt32(1) << layer | (prompt ? UInt32(1) << (16 + layer) : 0), ordering: .releasing)
    }

    /// `consumer`'s connected viewers of the stream.
    package func setViewers(_ count: Int, consumer: Int) {
        cursors[consumer].viewers.store(count, ordering: .relaxed)
        notePeak()
    }

    /// Octets `consumer` sent to its viewers since its last call.
    package func addBytesOut(_ bytes: UInt64) {
        if bytes > 0 { otherBytesOut.add(bytes, ordering: .relaxed) }
    }

    // MARK: the stream's totals

    /// Connected viewers on every worker.
    package var totalViewers: Int {
        cursors.reduce(originViewers.load(ordering: .relaxed)) { $0 + $1.viewers.load(ordering: .relaxed) }
    }

    /// The most viewers connected at once, on every worker together.
    package var peakViewers: Int { peak.load(ordering: .relaxed) }

    private func notePeak() {
        let total = totalViewers
        var seen = peak.load(ordering: .relaxed)
        while total > seen {
            let (exchanged, original) = peak.compareExchange(expected: seen, desired: total, ordering: .relaxed)
            if exchanged { return }
            seen = original
        }
    }
}
