/// ISO/IEC 14496-14 §5.6 MP4 audio sample entry ('mp4a'): an ISO/IEC 14496-12 §12.2.3
/// `AudioSampleEntry` (version 0) followed by an 'esds' box carrying the
/// AudioSpecificConfig.
public struct MP4AudioSampleEntry: BoxWritable, Equatable {
    public var config: AudioSpecificConfig
    public var averageBitrate: UInt32

    public init(config: AudioSpecificConfig, averageBitrate: UInt32 = 0) {
        self.config = config
        self.averageBitrate = averageBitrate
    }

    public func write(to writer: inout BoxWriter) {
        writer.box("mp4a") { body in
            body.writeZeros(6)                               // SampleEntry reserved
            body.write(UInt16(1))                            // data_reference_index
            body.writeZeros(8)                               // reserved(32)[2]
            body.write(UInt16(config.channelCount))
            body.write(UInt16(16))                           // samplesize
            body.write(UInt16(0))                            // pre_defined
            body.write(UInt16(0))                            // reserved
            // samplerate is 16.16 fixed point; rates above 65535 Hz cannot be expressed
            // and decoders take the rate from the AudioSpecificConfig anyway.
            body.write(UInt32(config.sampleRate <= 0xFFFF ? config.sampleRate : 0) << 16)
            ElementaryStreamDescriptorBox(decoderSpecificInfo: config.bytes, averageBitrate: averageBitrate,
                                          maxBitrate: averageBitrate).write(to: &body)
        }
    }
}
