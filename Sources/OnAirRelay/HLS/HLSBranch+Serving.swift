import NIOCore
import OnAirHLS

/// Serving side of ``HLSBranch``: resources, blocking reload, waiters.
extension HLSBranch {
    static let playlistCache = "no-cache"
    static let immutableCache = "public, max-age=31536000, immutable"

    /// Three target durations: RFC 8216bis §6.2.5.2's limit for holding a request.
    var holdLimit: TimeAmount {
        .seconds(3 * Int64(packager?.targetDuration ?? max(1, Int(settings.segmentTarget.components.seconds))))
    }

    func serve(_ resource: HLSResource, request: PlaylistRequest) -> HLSReply {
        guard let packager, packager.hasContent else {
            if finished { return .notFound("the stream ended before any media was packaged") }
            return wait(for: .content, resource, request)  // every resource waits for the first part
        }
        switch resource {
        case .multivariantPlaylist:
            return .content(ByteBuffer(string: packager.multivariantPlaylist().render()),
                            contentType: resource.contentType, cacheControl: Self.playlistCache)
        case .mediaPlaylist:
            // RFC 8216bis §6.2.5.2: once the stream ended, blocking parameters are ignored.
            let decision = finished ? .respond(deltaUpdate: request.deltaUpdate) : packager.decide(request)
            switch decision {
            case .respond(let delta):
                return .content(renderedMediaPlaylist(deltaUpdate: delta),
                                contentType: resource.contentType, cacheControl: Self.playlistCache)
            case .wait(let target, _):
                return wait(for: .playlist(target), resource, request)
            case .badRequest(let reason):
                return .badRequest(reason)
            }
        case .initializationSegment:
            return .content(ByteBuffer(bytes: packager.initializationSegment), contentType: resource.contentType,
                            cacheControl: Self.immutableCache)
        case .segment(let sequence):
            guard let segment = packager.segment(mediaSequence: sequence), segment.isComplete else {
                return .notFound("no segment \(sequence)")
            }
            return .content(ByteBuffer(bytes: segment.bytes), contentType: resource.contentType, cacheControl: Self.immutableCache)
        case .part(let number):
            switch packager.part(number: number) {
            case .available(let part):
                return .content(ByteBuffer(bytes: part.bytes), contentType: resource.contentType, cacheControl: Self.immutableCache)
            case .pending:
                return wait(for: .part(number), resource, request)
            case .notFound:
                return .notFound("no part \(number)")
            }
        }
    }

    /// Holds the request for `resource` until `target` is there; then it is served again,
    /// here on the media loop, and the future carries that answer.
    private func wait(for target: Target, _ resource: HLSResource, _ request: PlaylistRequest) -> HLSReply {
        if finished { return .notFound("the stream ended") }
        let promise = loop.makePromise(of: HLSReply.self)
        appendWaiter(Waiter(target: target, resource: resource, request: request, promise: promise,
                            deadline: .now() + holdLimit))
        return .wait(promise.futureResult)
    }

    /// Fails the requests held past their deadline (the engine's 20 ms tick calls this):
    /// one sweep instead of a timer per request, which a thousand held requests would
    /// each have to cancel from the loop's timer heap when released.
    func expireWaiters(now: NIODeadline) {
        guard waiterCount > 0 else { return }
        var still: [Waiter] = []
        for waiter in takeWaiters() {
            if waiter.deadline <= now { waiter.promise.fail(HLSWaitTimeout()) } else { still.append(waiter) }
        }
        for waiter in still { appendWaiter(waiter) }
    }

    func wakeSatisfied() {
        guard let packager else { return }
        let progress = packager.progress
        var still: [Waiter] = []
        for waiter in takeWaiters() {
            let ready: Bool
            switch waiter.target {
            case .content: ready = packager.hasContent
            case .playlist(let target): ready = progress.isSatisfied(target) || finished
            case .part(let number):
                if case .pending = packager.part(number: number) { ready = finished } else { ready = true }
            }
            if ready { release(waiter) } else { still.append(waiter) }
        }
        for waiter in still { appendWaiter(waiter) }
    }

    func wakeAll() {
        for waiter in takeWaiters() { release(waiter) }
    }

    /// Answers a held request now (all released by one part share the cached playlist).
    private func release(_ waiter: Waiter) {
        switch serve(waiter.resource, request: waiter.request) {
        case .wait(let next): waiter.promise.completeWith(next)
        case let reply: waiter.promise.succeed(reply)
        }
    }

    var waitingRequests: Int { waiterCount }

    var settingsNames: HLSResourceNames { packager?.configuration.names ?? HLSResourceNames() }
}
