import Logging
import NIOCore
import NIOPosix
import OnAirHLS
import Testing
@testable import OnAirRelay

/// Held LL-HLS requests (RFC 8216bis §6.2.5.2): released with an answer, failed (503) once
/// past three target durations, answered at the end of the stream.
@Suite("HLS: held requests")
struct HLSBranchWaitTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()

    func branch() -> HLSBranch {
        HLSBranch(room: "42", streamID: "s", settings: HLSSettings(), hasAudio: false, loop: loop,
                  logger: Logger(label: "hls-wait-tests", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test("a request before any media is held, and fails only once its deadline has passed")
    func expiry() async throws {
        let branch = branch()
        let future: EventLoopFuture<HLSReply> = try await loop.submit {
            guard case .wait(let future) = branch.serve(.mediaPlaylist, request: PlaylistRequest()) else {
                preconditionFailure("not held")
            }
            return future
        }.get()
        try await loop.submit {
            #expect(branch.waitingRequests == 1)
            branch.expireWaiters(now: .now())                       // well before 3 x 2 s
            #expect(branch.waitingRequests == 1)
            branch.expireWaiters(now: .now() + .seconds(7))
            #expect(branch.waitingRequests == 0)
        }.get()
        await #expect(throws: HLSWaitTimeout.self) { try await future.get() }
    }

    @Test("the end of the stream answers every held request")
    func releasedAtTheEnd() async throws {
        let branch = branch()
        let future: EventLoopFuture<HLSReply> = try await loop.submit {
            guard case .wait(let future) = branch.serve(.part(3), request: PlaylistRequest()) else { preconditionFailure("not held") }
            branch.finish()
            return future
        }.get()
        guard case .notFound(let reason) = try await future.get() else {
            Issue.record("expected 404 once the stream ended without media")
            return
        }
        #expect(reason.contains("ended"))
    }
}
