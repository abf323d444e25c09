/// Wakes a ``MediaTapRing``'s consumer thread when something arrives while it sleeps
/// (at most once per read batch of the forwarding loop; the relay's writes a byte to a pipe
/// its consumer loop watches).
package protocol TapWakeup: AnyObject, Sendable {
    func wake()
}
