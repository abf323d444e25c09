/// ISO/IEC 14496-12 §8.3.2 `TrackHeaderBox` ('tkhd'), version 0.
///
/// Flags 0x000003: track_enabled | track_in_movie. Width and height are the visual
/// presentation size in 16.16 fixed point (zero for audio); volume is 1.0 for audio only.
public struct TrackHeaderBox: BoxWritable, Equatable {
    public var trackID: UInt32
    public var width: UInt16
    public var height: UInt16
    public var isAudio: Bool

    public init(trackID: UInt32, width: UInt16 = 0, height: UInt16 = 0, isAudio: Bool) {
        self.trackID = trackID
        self.width = width
        self.height = height
        self.isAudio = isAudio
    }

    public func write(to writer: inout BoxWriter) {
        writer.fullBox("tkhd", version: 0, flags: 0x00_0003) { body in
            body.write(UInt32(0))                    // creation_time
            body.write(UInt32(0))                    // modification_time
            body.write(trackID)
            body.write(UInt32(0))                    // reserved
            body.write(UInt32(0))                    // duration
            body.writeZeros(8)                       // reserved(32)[2]
            body.write(UInt16(0))                    // layer
            body.write(UInt16(0))                    // alternate_group
            body.write(UInt16(isAudio ? 0x0100 : 0)) // volume
            body.write(UInt16(0))                    // reserved
            body.writeUnityMatrix()
            body.write(UInt32(width) << 16)
            body.write(UInt32(height) << 16)
        }
    }
}
