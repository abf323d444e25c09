import OnAirWire

/// Packet status chunks of transport-wide feedback
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.3, §3.1.4), 16 bits each:
///
/// ```
/// run length:    |T=0| S (2) |        run length (13)         |
/// status vector: |T=1|S=0| 14 one-bit symbols                 |   0 not received, 1 small delta
///                |T=1|S=1| 7 two-bit symbols                  |
/// ```
/// Symbols: 0 not received, 1 received with a small delta, 2 received with a large or
/// negative delta, 3 reserved.
public enum TransportWideFeedbackChunk: Sendable, Hashable {
    case runLength(symbol: UInt8, length: Int)
    /// 14 symbols, each 0 or 1.
    case oneBitVector([UInt8])
    /// 7 symbols, each 0, 1 or 2.
    case twoBitVector([UInt8])

    public static let notReceived: UInt8 = 0
    public static let smallDelta: UInt8 = 1
    public static let largeDelta: UInt8 = 2
    public static let maxRunLength = 0x1FFF

    /// The chunk's 16-bit wire form.
    public var rawValue: UInt16 {
        switch self {
        case .runLength(let symbol, let length):
            return UInt16(symbol & 0x3) << 13 | UInt16(min(max(length, 0), Self.maxRunLength))
        case .oneBitVector(let symbols):
            var value: UInt16 = 0x8000
            for (i, symbol) in symbols.prefix(14).enumerated() { value |= UInt16(symbol & 0x1) << UInt16(13 - i) }
            return value
        case .twoBitVector(let symbols):
            var value: UInt16 = 0xC000
            for (i, symbol) in symbols.prefix(7).enumerated() { value |= UInt16(symbol & 0x3) << UInt16(12 - 2 * i) }
            return value
        }
    }

    /// Encodes `count` symbols (read through `symbolAt`) as chunks, calling `emit` with
    /// each 16-bit chunk, without allocating. Greedy: a run of 14 or more equal symbols
    /// becomes a run length chunk; otherwise a one-bit vector covers the next 14 symbols
    /// when none is a large delta; otherwise a run of 7 or more becomes a run length
    /// chunk, else a two-bit vector covers the next 7. The last vector may describe
    /// symbols past `count` as "not received"; receivers stop at the status count.
    static func encode(count: Int, symbolAt: (Int) -> UInt8, emit: (UInt16) -> Void) {
        var index = 0
        while index < count {
            let symbol = symbolAt(index)
            var run = 1
            while index + run < count && run < maxRunLength && symbolAt(index + run) == symbol { run += 1 }
            let window = min(14, count - index)
            if run >= 14 || run == count - index {
                emit(UInt16(symbol) << 13 | UInt16(run))
                index += run
                continue
            }
            var hasLarge = false
            for i in index..<(index + window) where symbolAt(i) == largeDelta { hasLarge = true }
            if !hasLarge {
                var value: UInt16 = 0x8000
                for i in 0..<window { value |= UInt16(symbolAt(index + i)) << UInt16(13 - i) }
                emit(value)
                index += window
            } else if run >= 7 {
                emit(UInt16(symbol) << 13 | UInt16(run))
                index += run
            } else {
                let take = min(7, count - index)
                var value: UInt16 = 0xC000
                for i in 0..<take { value |= UInt16(symbolAt(index + i)) << UInt16(12 - 2 * i) }
                emit(value)
                index += take
            }
        }
    }

    /// Parses a chunk from its wire form (for inspection and tests).
    public init(rawValue: UInt16) {
        if rawValue & 0x8000 == 0 {
            self = .runLength(symbol: UInt8(rawValue >> 13 & 0x3), length: Int(rawValue & 0x1FFF))
        } else if rawValue & 0x4000 == 0 {
            self = .oneBitVector((0..<14).map { UInt8(rawValue >> UInt16(13 - $0) & 0x1) })
        } else {
            self = .twoBitVector((0..<7).map { UInt8(rawValue >> UInt16(12 - 2 * $0) & 0x3) })
        }
    }
}
