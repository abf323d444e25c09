/// What an OnAir relay thread does, told from its name (the relay names none itself; SwiftNIO
/// names its event loops `NIO-ELT-<group>-#<loop>`, its singleton's `NIO-SGLTN-<group>-#<loop>`).
///
/// The relay makes two event loop groups of its own, in this order (RelayServer.run): the
/// LL-HLS thread (HLSService, one loop), then the media workers (MediaWorkers, one loop per
/// worker; `next()` hands the loops out in order, so worker `i` runs on the group's `i`-th
/// lowest loop number: `#i+1` with SwiftNIO 2.101, whose loop numbers start at 1). Group numbers
/// count up process-wide, so the media workers are the highest-numbered `NIO-ELT` group and
/// LL-HLS the one before it. HTTP (Hummingbird) and the webhook client run on the singleton.
enum RelayThreadRole: Equatable {
    case mediaWorker(Int)
    case hls
    case http
    case blockingPool
    case main
    /// Unnamed threads (comm = the executable's name): Swift concurrency's pool, Dispatch.
    case unnamed
    /// A named thread none of the rules above match.
    case other

    var label: String {
        switch self {
        case .mediaWorker(let index): "media worker \(index)"
        case .hls: "LL-HLS"
        case .http: "HTTP (NIO singleton)"
        case .blockingPool: "NIO blocking pool"
        case .main: "main"
        case .unnamed: "concurrency/Dispatch"
        case .other: "-"
        }
    }

    var isMediaWorker: Bool {
        if case .mediaWorker = self { return true }
        return false
    }

    /// Roles of the threads named `comms` (by tid) of process `pid`; `workers`: the media
    /// workers the relay was started with, to check the group found (nil: not known).
    static func classify(_ comms: [Int32: String], pid: Int32, workers: Int?) -> [Int32: RelayThreadRole] {
        var groups: [Int: [(tid: Int32, loop: Int)]] = [:]
        for (tid, comm) in comms {
            if case let (group, loop)? = eventLoop(comm, prefix: "NIO-ELT-") { groups[group, default: []].append((tid, loop)) }
        }
        let ids = groups.keys.sorted()
        var media = ids.last
        if let id = media, let workers, groups[id]?.count != workers { media = nil }
        let hls = ids.count >= 2 && media != nil && groups[ids[ids.count - 2]]?.count == 1 ? ids[ids.count - 2] : nil
        let mediaLoops = media.flatMap { groups[$0] }?.map(\.loop).sorted() ?? []
        var roles: [Int32: RelayThreadRole] = [:]
        for (tid, comm) in comms {
            if case let (group, loop)? = eventLoop(comm, prefix: "NIO-ELT-") {
                let worker = group == media ? mediaLoops.firstIndex(of: loop) : nil
                roles[tid] = worker.map { .mediaWorker($0) } ?? (group == hls ? .hls : .other)
            } else if comm.hasPrefix("NIO-SGLTN-") {
                roles[tid] = .http
            } else if comm.hasPrefix("TP-#") || comm.hasPrefix("SGLTN-TP-#") {
                roles[tid] = .blockingPool
            } else if tid == pid {
                roles[tid] = .main
            } else {
                roles[tid] = comm == comms[pid] ? .unnamed : .other
            }
        }
        return roles
    }

    /// Group and loop numbers of a SwiftNIO loop thread's name, e.g. `NIO-ELT-3-#1` -> (3, 1).
    private static func eventLoop(_ comm: String, prefix: String) -> (Int, Int)? {
        guard comm.hasPrefix(prefix) else { return nil }
        let parts = comm.dropFirst(prefix.count).split(separator: "-#")
        guard parts.count == 2, let group = Int(parts[0]), let loop = Int(parts[1]) else { return nil }
        return (group, loop)
    }
}
