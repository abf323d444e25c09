import NIOCore
import OnAirForwarding
import OnAirHLS

/// LL-HLS requests on the engine's loop.
extension RelayEngine {
    /// The live presentation of `room`, or the one that ended there recently. A publisher that
    /// has not connected yet is not live (as `/api/streams` says): its branch is not served, or
    /// a request for a session that never connects would be held and then answered 503.
    func hlsBranch(room: String) -> HLSBranch? {
        if let live = plane.rooms[room], live.publisher?.connectedAt != nil, let branch = live.tap as? HLSBranch {
            return branch
        }
        return endedHLS[room]?.branch
    }

    /// `index.m3u8` of a room: the multivariant playlist of whatever stream is (or was) there,
    /// pointing into that stream's own directory.
    func hlsMultivariant(room: String) -> HLSReply {
        guard let branch = hlsBranch(room: room) else { return .notFound("room \(room) is not live") }
        let reply = branch.serveMultivariant(prefix: branch.streamID + "/")
        guard case .wait(let released) = reply else { return reply }
        // Released without the prefix (the stream's own index.m3u8): answer again from here.
        return .wait(released.map { _ in self.hlsMultivariant(room: room) })
    }

    func hlsResource(room: String, stream: String, name: String, request: PlaylistRequest) -> HLSReply {
        guard let branch = hlsBranch(room: room), branch.streamID == stream else {
            return .notFound("no such stream in room \(room)")
        }
        return branch.serve(name: name, request: request)
    }

    /// LL-HLS figures for `/metrics`.
    func hlsCounters() -> HLSCounters {
        let live = plane.rooms.values.reduce(0) { $0 + (($1.tap as? HLSBranch)?.waitingRequests ?? 0) }
        let ended = endedHLS.values.reduce(0) { $0 + $1.branch.waitingRequests }
        return hlsStatistics.snapshot(waitingRequests: live + ended)
    }
}
