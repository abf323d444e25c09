import OnAirHLS

/// Test helper: reads an ADTS stream (ISO/IEC 13818-7 §6.2 / ISO/IEC 14496-3 §1.A.2)
/// into raw AAC frames and the AudioSpecificConfig the header implies.
struct ADTSStream {
    var frames: [[UInt8]] = []
    var config: AudioSpecificConfig?

    init(_ bytes: [UInt8]) {
        var offset = 0
        while offset + 7 <= bytes.count {
            guard bytes[offset] == 0xFF, bytes[offset + 1] & 0xF0 == 0xF0 else { break }
            let protectionAbsent = bytes[offset + 1] & 1 == 1
            let profile = bytes[offset + 2] >> 6                 // audioObjectType - 1
            let frequencyIndex = Int(bytes[offset + 2] >> 2 & 0xF)
            let channels = (bytes[offset + 2] & 1) << 2 | bytes[offset + 3] >> 6
            let frameLength = Int(bytes[offset + 3] & 0x3) << 11 | Int(bytes[offset + 4]) << 3 | Int(bytes[offset + 5] >> 5)
            let headerLength = protectionAbsent ? 7 : 9
            guard frameLength > headerLength, offset + frameLength <= bytes.count else { break }
            if config == nil {
                config = AudioSpecificConfig(audioObjectType: profile + 1,
                                             sampleRate: AudioSpecificConfig.samplingFrequencies[frequencyIndex],
                                             channelConfiguration: channels)
            }
            frames.append(Array(bytes[offset + headerLength..<offset + frameLength]))
            offset += frameLength
        }
    }
}
