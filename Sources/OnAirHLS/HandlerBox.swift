/// ISO/IEC 14496-12 §8.4.3 `HandlerReferenceBox` ('hdlr'): the media type of a track
/// ('vide' or 'soun') and a human-readable, null-terminated name.
public struct HandlerBox: BoxWritable, Equatable {
    public var handlerType: FourCC
    public var name: String

    public init(handlerType: FourCC, name: String) {
        self.handlerType = handlerType
        self.name = name
    }

    public static let video = HandlerBox(handlerType: "vide", name: "VideoHandler")
    public static let sound = HandlerBox(handlerType: "soun", name: "SoundHandler")

    public func write(to writer: inout BoxWriter) {
        writer.fullBox("hdlr", version: 0, flags: 0) { body in
            body.write(UInt32(0))   // pre_defined
            body.write(handlerType)
            body.writeZeros(12)     // reserved(32)[3]
            body.write(contentsOf: name.utf8)
            body.write(UInt8(0))
        }
    }
}
