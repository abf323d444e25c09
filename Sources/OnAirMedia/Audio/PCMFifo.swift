/// A ring of interleaved stereo 16-bit samples between a decoder (any chunk size) and the Opus
/// encoder (exactly 960 per channel). Sized once; pushing more than fits drops the oldest
/// audio rather than growing without bound.
public struct PCMFifo: ~Copyable {
    public let capacityFrames: Int
    private let storage: UnsafeMutablePointer<Int16>
    private var readIndex = 0
    /// Frames (sample pairs) available.
    public private(set) var count = 0
    /// Frames dropped because the ring was full.
    public private(set) var overflowFrames = 0

    public init(capacityFrames: Int) {
        self.capacityFrames = capacityFrames
        storage = .allocate(capacity: capacityFrames * 2)
        storage.initialize(repeating: 0, count: capacityFrames * 2)
    }

    deinit { storage.deallocate() }

    public mutating func push(_ samples: UnsafePointer<Int16>, frames: Int) {
        var source = samples
        var remaining = frames
        if remaining > capacityFrames {
            overflowFrames += remaining - capacityFrames
            source += (remaining - capacityFrames) * 2
            remaining = capacityFrames
        }
        let free = capacityFrames - count
        if remaining > free {
            let drop = remaining - free
            readIndex = (readIndex + drop) % capacityFrames
            count -= drop
            overflowFrames += drop
        }
        var writeIndex = (readIndex + count) % capacityFrames
        while remaining > 0 {
            let run = min(remaining, capacityFrames - writeIndex)
            (storage + writeIndex * 2).update(from: source, count: run * 2)
            source += run * 2
            remaining -= run
            count += run
            writeIndex = (writeIndex + run) % capacityFrames
        }
    }

    /// Copies `frames` frames out into `destination` if that many are buffered.
    public mutating func pop(into destination: UnsafeMutablePointer<Int16>, frames: Int) -> Bool {
        guard count >= frames else { return false }
        var target = destination
        var remaining = frames
        while remaining > 0 {
            let run = min(remaining, capacityFrames - readIndex)
            target.update(from: storage + readIndex * 2, count: run * 2)
            target += run * 2
            remaining -= run
            readIndex = (readIndex + run) % capacityFrames
            count -= run
        }
        return true
    }

    public mutating func removeAll() {
        readIndex = 0
        count = 0
    }
}
