import OnAirWire

/// Test helper: an independent reader of ISO BMFF box trees (ISO/IEC 14496-12 §4.2) that
/// checks every size adds up and lists boxes by path ("moov/trak/mdia/mdhd").
struct BoxWalker {
    struct Box {
        var path: String
        var type: String
        var start: Int
        var size: Int
        var headerSize: Int { 8 }
        var bodyStart: Int { start + 8 }
    }

    /// Boxes whose bodies are only boxes.
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "dinf", "stbl", "mvex", "moof", "traf"]

    let bytes: [UInt8]
    private(set) var boxes: [Box] = []

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        try walk(from: 0, to: bytes.count, parent: "")
    }

    private mutating func walk(from start: Int, to end: Int, parent: String) throws {
        var offset = start
        while offset < end {
            guard offset + 8 <= end else { throw WireError.truncated }
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8, offset + size <= end else { throw WireError.invalid("box \(type) size \(size) overruns") }
            let path = parent.isEmpty ? type : parent + "/" + type
            boxes.append(Box(path: path, type: type, start: offset, size: size))
            if Self.containers.contains(type) { try walk(from: offset + 8, to: offset + size, parent: path) }
            if type == "stsd" { try walk(from: offset + 16, to: offset + size, parent: path) }   // full box + entry_count
            offset += size
        }
    }

    var paths: [String] { boxes.map(\.path) }

    func first(_ path: String) -> Box? { boxes.first { $0.path == path } }
    func all(_ path: String) -> [Box] { boxes.filter { $0.path == path } }

    func uint32(at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    func uint64(at offset: Int) -> UInt64 { UInt64(uint32(at: offset)) << 32 | UInt64(uint32(at: offset + 4)) }

    /// One track run read back: the traf's track, tfdt, and the trun rows
    /// (§8.8.8 with flags 0x000701: data_offset, then duration/size/flags per sample).
    struct Run {
        var trackID: UInt32
        var baseMediaDecodeTime: UInt64
        var dataOffset: Int
        var samples: [(duration: UInt32, size: UInt32, flags: UInt32)]
    }

    /// The runs of every 'traf' of the 'moof' that starts at `moofStart`.
    func runs(moofStart: Int) -> [Run] {
        boxes.filter { $0.type == "traf" && $0.start > moofStart && $0.start < moofStart + Int(uint32(at: moofStart)) }
            .map { traf in
                let children = boxes.filter { $0.start > traf.start && $0.start < traf.start + traf.size }
                let tfhd = children.first { $0.type == "tfhd" }!
                let tfdt = children.first { $0.type == "tfdt" }!
                let trun = children.first { $0.type == "trun" }!
                let count = Int(uint32(at: trun.start + 12))
                var samples: [(UInt32, UInt32, UInt32)] = []
                for index in 0..<count {
                    let row = trun.start + 20 + index * 12
                    samples.append((uint32(at: row), uint32(at: row + 4), uint32(at: row + 8)))
                }
                return Run(trackID: uint32(at: tfhd.start + 12), baseMediaDecodeTime: uint64(at: tfdt.start + 12),
                           dataOffset: Int(Int32(bitPattern: uint32(at: trun.start + 16))), samples: samples)
            }
    }
}
