import OnAirWire

/// ISO/IEC 14496-3 §1.6.2.1 `AudioSpecificConfig`, the few fields an AAC-LC track needs:
/// audioObjectType(5) samplingFrequencyIndex(4) [samplingFrequency(24) if index 0xF]
/// channelConfiguration(4), then GASpecificConfig (§4.4.1) whose three flags are zero
/// for plain AAC-LC (1024-sample frames, no core coder, no extension).
public struct AudioSpecificConfig: Equatable, Sendable {
    /// 2 = AAC LC (ISO/IEC 14496-3 Table 1.1).
    public var audioObjectType: UInt8
    public var sampleRate: Int
    /// 1-7 (Table 1.19); 0 means "defined in-band", which we do not produce.
    public var channelConfiguration: UInt8

    /// ISO/IEC 14496-3 Table 1.18 samplingFrequencyIndex.
    public static let samplingFrequencies = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050,
                                             16000, 12000, 11025, 8000, 7350]

    public init(audioObjectType: UInt8 = 2, sampleRate: Int, channelConfiguration: UInt8) {
        self.audioObjectType = audioObjectType
        self.sampleRate = sampleRate
        self.channelConfiguration = channelConfiguration
    }

    /// Parses the bytes of an 'esds' DecoderSpecificInfo or an SDP `config=`. Only the
    /// 5-bit object types (< 31) are read; the escape to 6 more bits is refused.
    public init(parsing bytes: [UInt8]) throws(WireError) {
        var bits = BitCursor(bytes)
        let objectType = try bits.read(5)
        guard objectType != 31 else { throw .invalid("AudioSpecificConfig: extended audioObjectType") }
        guard objectType != 0 else { throw .invalid("AudioSpecificConfig: audioObjectType 0") }
        let index = try bits.read(4)
        let rate: Int
        if index == 0xF {
            rate = Int(try bits.read(24))
        } else if Int(index) < Self.samplingFrequencies.count {
            rate = Self.samplingFrequencies[Int(index)]
        } else {
            throw .invalid("AudioSpecificConfig: reserved samplingFrequencyIndex \(index)")
        }
        guard rate > 0 else { throw .invalid("AudioSpecificConfig: sampling frequency 0") }
        let channels = try bits.read(4)
        self.init(audioObjectType: UInt8(objectType), sampleRate: rate, channelConfiguration: UInt8(channels))
    }

    /// The channel count a sample entry announces (Table 1.19: configuration 7 is 7.1).
    public var channelCount: Int {
        switch channelConfiguration {
        case 7: return 8
        default: return Int(channelConfiguration)
        }
    }

    /// RFC 6381 §3.3 with ISO/IEC 14496-1 objectTypeIndication 0x40 (MPEG-4 Audio):
    /// "mp4a.40." + the decimal audioObjectType ("mp4a.40.2" for AAC-LC).
    public var codecString: String { "mp4a.40.\(audioObjectType)" }

    /// The serialized config, padded to whole bytes with the zero GASpecificConfig flags.
    public var bytes: [UInt8] {
        var bits: UInt64 = UInt64(audioObjectType & 0x1F)
        var count = 5
        if let index = Self.samplingFrequencies.firstIndex(of: sampleRate) {
            bits = bits << 4 | UInt64(index)
            count += 4
        } else {
            bits = bits << 28 | 0xF << 24 | UInt64(sampleRate & 0xFF_FFFF)
            count += 28
        }
        bits = bits << 4 | UInt64(channelConfiguration & 0xF)
        count += 4
        bits <<= 3                      // frameLengthFlag, dependsOnCoreCoder, extensionFlag
        count += 3
        let padded = (count + 7) / 8 * 8
        bits <<= UInt64(padded - count)
        return (0..<padded / 8).reversed().map { UInt8(truncatingIfNeeded: bits >> UInt64($0 * 8)) }
    }
}

/// A big-endian bit reader that throws at the end of input instead of trapping.
struct BitCursor {
    private let bytes: [UInt8]
    private var bitOffset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) throws(WireError) -> UInt32 {
        guard bitOffset + count <= bytes.count * 8 else { throw .truncated }
        var value: UInt32 = 0
        for _ in 0..<count {
            let bit = bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7)) & 1
            value = value << 1 | UInt32(bit)
            bitOffset += 1
        }
        return value
    }
}
