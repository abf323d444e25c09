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

    /// A branch made on its event loop and reachable only there (it is confined to it).
    func branch() async throws -> NIOLoopBound<HLSBranch> {
        let loop = self.loop
        return try await loop.submit {
            NIOLoopBound(HLSBranch(room: "42", streamID: "s", settings: HLSSettings(), hasAudio: false, loop: loop,
                                   logger: Logger(label: "hls-wait-tests", factory: { _ in SwiftLogNoOpLogHandler() })),
                         eventLoop: loop)
        }.get()
    }

    @Test("a request before any media is held, and fails only once its deadline has passed")
    func expiry() async throws {
        let bound = try await branch()
        let future: EventLoopFuture<HLSReply> = try await loop.submit {
            let branch = bound.value
            guard case .wait(let future) = branch.serve(.mediaPlaylist, request: PlaylistRequest()) else {
                preconditionFailure("not held")
            }
            return future
        }.get()
        // Times relative to the waiter's own deadline, and expectations checked on the test's
        // task: a busy shared event loop (the whole suite runs in parallel) must not matter.
        let (held, limit, early, late) = try await loop.submit { () -> (Int, TimeAmount, Int, Int) in
            let branch = bound.value
            let waiters = branch.takeWaiters()
            for waiter in waiters { branch.appendWaiter(waiter) }
            guard let deadline = waiters.first?.deadline else { return (waiters.count, branch.holdLimit, -1, -1) }
            branch.expireWaiters(now: deadline - .milliseconds(1))   // just before: still held
            let early = branch.waitingRequests
            branch.expireWaiters(now: deadline)                       // at the deadline: failed
            return (waiters.count, branch.holdLimit, early, branch.waitingRequests)
        }.get()
        #expect(held == 1)
        #expect(limit == .seconds(6), "3 x the 2 s segment target before any media")
        #expect(early == 1)
        #expect(late == 0)
        await #expect(throws: HLSWaitTimeout.self) { try await future.get() }
    }

    @Test("the end of the stream answers every held request")
    func releasedAtTheEnd() async throws {
        let bound = try await branch()
        let future: EventLoopFuture<HLSReply> = try await loop.submit {
            let branch = bound.value
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
