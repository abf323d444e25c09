import OnAirWire

/// Bytes from hex text written in tests (spaces and newlines allowed).
func hex(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(text) else { fatalError("bad hex in test: \(text)") }
    return bytes
}


/// Runs `body` with a fresh [UInt8] copy's raw bytes, for the zero-copy APIs.
func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes(body)
}
