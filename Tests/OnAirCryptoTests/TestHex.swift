import OnAirWire

/// Test-vector hex (spaces and newlines allowed); traps on a typo so a bad vector is loud.
func hex(_ text: String) -> [UInt8] {
    guard let bytes = Hex.decode(text) else { fatalError("bad hex in test vector: \(text)") }
    return bytes
}

func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
