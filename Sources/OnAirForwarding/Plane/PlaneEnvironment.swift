import Foundation
import OnAirCrypto

/// What the media plane takes from outside besides datagrams and the monotonic `now` its
/// caller passes: the time of day (the `at` of lifecycle events, a stream's start in
/// `/api/streams`) and random numbers (session ids, ICE credentials, SSRCs, first sequence
/// numbers and timestamps). The relay gives the system's (OpenSSL's DRBG: ids and ICE
/// passwords must not be guessable, RFC 8445 §5.3); tests give a seeded one, so a run of the
/// plane is the same every time.
package struct PlaneEnvironment {
    package var wallClock: () -> Date
    package var randomBytes: (Int) -> [UInt8]

    package init(wallClock: @escaping () -> Date, randomBytes: @escaping (Int) -> [UInt8]) {
        self.wallClock = wallClock
        self.randomBytes = randomBytes
    }

    package static var system: PlaneEnvironment { PlaneEnvironment(wallClock: Date.init, randomBytes: SecureRandom.bytes) }

    /// Deterministic: SplitMix64 from `seed`, and a wall clock that reads `wallClock`.
    package static func seeded(_ seed: UInt64, wallClock: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> PlaneEnvironment {
        var state = seed
        return PlaneEnvironment(wallClock: { wallClock }, randomBytes: { count in
            (0..<count).map { _ in
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return UInt8(truncatingIfNeeded: z ^ (z >> 31))
            }
        })
    }

    package func uint32() -> UInt32 { randomBytes(4).reduce(0) { $0 << 8 | UInt32($1) } }

    package func uint16() -> UInt16 { UInt16(truncatingIfNeeded: uint32()) }
}
