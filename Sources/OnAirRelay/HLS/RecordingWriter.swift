import Dispatch

/// The one background queue that every recording (``StreamRecorder``) writes on, so that
/// the LL-HLS loop never waits for a disk: it only hands over bytes it already has.
final class RecordingWriter: Sendable {
    let queue = DispatchQueue(label: "onair.hls.recording", qos: .utility)

    init() {}

    /// Returns once everything queued before the call is written (graceful shutdown: the
    /// streams were ended first, so their files are complete when this returns).
    func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }
}
