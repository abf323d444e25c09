import Synchronization
import OnAirRTP
import OnAirWire

/// How a room's admitted media reaches a consumer on another thread (the relay's LL-HLS
/// packager): a single-producer, single-consumer ring of fixed slots, allocated once. The
/// forwarding loop copies each packet's payload and numbers into the next slot and publishes
/// it with one atomic store; the consumer reads the slots in order and hands them back with
/// another. Neither side allocates or takes a lock per packet, and a consumer that falls
/// behind costs the forwarding loop nothing: a packet that finds the ring full is dropped
/// and counted (``dropped``).
///
/// Control goes beside the slots, in flags that are never lost to a full ring: the stream
/// started (its publisher connected), finished, and the consumer wants a keyframe.
package final class MediaTapRing: @unchecked Sendable {
    // @unchecked: the producer's fields are touched only by the producer (the room's loop),
    // the consumer's only by the consumer; what they share is atomic.

    package static let slotSize = 2_048
    /// Bytes of a slot before its payload (``TapRecord``'s fixed fields and the rid).
    package static let headerSize = 64
    package static let maximumPayload = slotSize - headerSize
    /// Longer rids are cut here (RFC 8851 allows any length; the packager names renditions
    /// only by rids of at most 16 octets).
    package static let maximumRIDLength = headerSize - TapRecord.ridOffset

    private let storage: SlotStorage
    /// Records published (producer) and taken back (consumer), counted from the start.
    private let published = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)
    private let consumerIdle = Atomic<Bool>(true)
    private let keyframeRequest = Atomic<Bool>(false)
    private let startedFlag = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)
    private let droppedCount = Atomic<UInt64>(0)
    /// Rings the consumer when a record or a flag arrives while it sleeps.
    private let wakeup: (any TapWakeup)?

    // Producer side.
    private var producerIndex = 0
    private var unannounced = false

    // Consumer side.
    private var consumerIndex = 0

    /// `capacity`: slots (a power of two); 1,024 hold about two seconds of a three-layer
    /// simulcast stream with its audio.
    package init(capacity: Int = 1_024, wakeup: (any TapWakeup)?) {
        storage = SlotStorage(capacity: capacity, slotSize: Self.slotSize)
        self.wakeup = wakeup
    }

    package var capacity: Int { storage.capacity }

    /// Records the ring could not take (the consumer fell behind), since it was made.
    package var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }

    // MARK: producer (the forwarding loop)

    /// A video packet of publisher layer `layer` (``PublisherSession/videoLayers``).
    @inline(__always)
    package func video(layer: Int, rid: String?, isPrimary: Bool, sequence: UInt16, timestamp: UInt32, marker: Bool,
                       payload: UnsafeRawBufferPointer, now: MonoTime) {
        guard payload.count <= Self.maximumPayload, let slot = nextSlot() else { return }
        TapRecord.write(.video, into: slot, layer: layer, rid: rid, isPrimary: isPrimary, marker: marker, sequence: sequence,
                        timestamp: timestamp, time: now.nanoseconds, payload: payload)
        publish()
    }

    @inline(__always)
    package func audio(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, now: MonoTime) {
        guard payload.count <= Self.maximumPayload, let slot = nextSlot() else { return }
        TapRecord.write(.audio, into: slot, layer: -1, rid: nil, isPrimary: false, marker: marker, sequence: sequence,
                        timestamp: timestamp, time: now.nanoseconds, payload: payload)
        publish()
    }

    /// RFC 3550 §6.4.1 sender report of video layer `layer`, or of the audio (`layer` nil).
    package func senderReport(layer: Int?, rid: String?, isPrimary: Bool, ntp: NTPTime, rtpTimestamp: UInt32) {
        guard let slot = nextSlot() else { return }
        TapRecord.write(.senderReport, into: slot, layer: layer ?? -1, rid: rid, isPrimary: isPrimary, marker: false, sequence: 0,
                        timestamp: rtpTimestamp, time: ntp.rawValue, payload: UnsafeRawBufferPointer(start: nil, count: 0))
        publish()
    }

    /// The stream's publisher connected: the consumer may serve it.
    package func start() {
        startedFlag.store(true, ordering: .releasing)
        unannounced = true
        announce()
    }

    /// The stream ended: nothing follows what was published.
    package func finish() {
        finishedFlag.store(true, ordering: .releasing)
        unannounced = true
        announce()
    }

    /// Whether the consumer asked for a keyframe since the last call (cleared by it).
    @inline(__always)
    package func takeKeyframeRequest() -> Bool {
        guard keyframeRequest.load(ordering: .relaxed) else { return false }
        return keyframeRequest.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Wakes the consumer if it sleeps and something was published since the last call:
    /// once per read batch, not per packet.
    package func announce() {
        guard unannounced else { return }
        unannounced = false
        // Pairs with the consumer's fence in ``drain(into:)``: either it sees what was
        // published, or this sees it idle and rings.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if consumerIdle.load(ordering: .sequentiallyConsistent), consumerIdle.exchange(false, ordering: .sequentiallyConsistent) {
            wakeup?.wake()
        }
    }

    @inline(__always)
    private func nextSlot() -> UnsafeMutableRawBufferPointer? {
        guard producerIndex - consumed.load(ordering: .acquiring) < capacity else {
            droppedCount.add(1, ordering: .relaxed)
            return nil
        }
        return storage.slot(producerIndex)
    }

    @inline(__always)
    private func publish() {
        producerIndex &+= 1
        published.store(producerIndex, ordering: .releasing)
        unannounced = true
    }

    // MARK: consumer

    /// Whether the producer said the stream started (``start()``).
    package var started: Bool { startedFlag.load(ordering: .acquiring) }

    /// Hands every published record to `consumer`, in order, and gives its slot back after
    /// each; passes the consumer's keyframe wish to the producer. Returns true once the stream
    /// finished and everything before its end was handed over (the ring is done).
    package func drain(into consumer: some MediaTapConsumer) -> Bool {
        while true {
            let end = published.load(ordering: .acquiring)
            while consumerIndex < end {
                TapRecord(storage.record(consumerIndex)).deliver(to: consumer)
                consumerIndex += 1
                consumed.store(consumerIndex, ordering: .releasing)
            }
            if consumer.keyframeWanted {
                consumer.keyframeWanted = false
                keyframeRequest.store(true, ordering: .releasing)
            }
            consumerIdle.store(true, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            let finished = finishedFlag.load(ordering: .sequentiallyConsistent)
            if published.load(ordering: .sequentiallyConsistent) == consumerIndex { return finished }
            consumerIdle.store(false, ordering: .sequentiallyConsistent)
        }
    }
}
