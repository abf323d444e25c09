/// What `broadcast start` sends.
public enum InputChoice: Sendable, Equatable {
    /// The built-in pattern (frame counter, wall-clock barcode, beep each second).
    case testPattern
    case file(path: String, loop: Bool)
    case camera(device: String)
}
