import Synchronization

/// One worker's place in a ``StreamFeed``: how far it has read, whether it reads at all, and
/// whether it sleeps (so the publisher's worker rings it). Also the count of its connected
/// viewers of the stream, for the stream's totals.
package final class FeedCursor: Sendable {
    /// Records taken back (every slot before this may be written again).
    let position = Atomic<Int>(0)
    let active = Atomic<Bool>(false)
    let idle = Atomic<Bool>(false)
    let viewers = Atomic<Int>(0)
    /// Rings the worker's loop.
    let wakeup: (any TapWakeup)?

    init(wakeup: (any TapWakeup)?) { self.wakeup = wakeup }
}
