import NIOCore
import OnAirHLS
import OnAirWire

/// Serving side of ``HLSBranch``: resources, blocking reload, waiters.
extension HLSBranch {
    static let playlistCache = "no-cache"
    static let immutableCache = "public, max-age=31536000, immutable"

    /// Three target durations: RFC 8216bis §6.2.5.2's limit for holding a request.
    var holdLimit: TimeAmount {
        let target = renditions.compactMap { $0.packager?.targetDuration }.max()
        return .seconds(3 * Int64(target ?? max(1, Int(settings.segmentTarget.components.seconds))))
    }

    /// The rendition and resource a file name of this stream's directory names.
    func resolve(_ name: String) -> (HLSRendition?, HLSResource)? {
        for rendition in renditions {
            guard let resource = rendition.names.resource(named: name) else { continue }
            return resource == .multivariantPlaylist ? (nil, resource) : (rendition, resource)
        }
        return nil
    }

    /// The multivariant playlist can be served: every rendition whose layer is arriving has
    /// media, and a rendition whose layer never came had a second (Chromium sends fewer layers
    /// for a small camera); at most four seconds after the first packet. A player never
    /// reloads it, so it waits for the renditions rather than list only the first with a part.
    var multivariantReady: Bool {
        guard renditions.contains(where: { $0.packager?.hasContent == true }) else { return false }
        if finished { return true }
        let waited = firstPacketAt.map { MonoTime.now() - $0 } ?? .zero
        if waited >= .seconds(4) { return true }
        let arriving = renditions.filter { $0.layer != nil }
        return arriving.allSatisfy { $0.packager?.hasContent == true }
            && (arriving.count == renditions.count || waited >= .seconds(1))
    }

    /// RFC 8216bis §4.4.6: a Variant Stream per rendition with media, the biggest first;
    /// `prefix` is put before each media playlist's name (the stream's directory).
    func multivariantPlaylist(prefix: String = "") -> MultivariantPlaylist {
        let ready = renditions.filter { $0.packager?.hasContent == true }.sorted { $0.pixels > $1.pixels }
        return MultivariantPlaylist(variants: ready.map { $0.packager!.variantStream(uri: prefix + $0.names.mediaPlaylist) })
    }

    /// The multivariant playlist as an answer, or held until ``multivariantReady``.
    func serveMultivariant(prefix: String = "") -> HLSReply {
        guard multivariantReady else {
            if finished { return .notFound("the stream ended before any media was packaged") }
            return wait(for: .content, nil, .multivariantPlaylist, PlaylistRequest())
        }
        return .content(ByteBuffer(string: multivariantPlaylist(prefix: prefix).render()),
                        contentType: HLSResource.multivariantPlaylist.contentType, cacheControl: Self.playlistCache)
    }

    /// A resource of this stream's directory, by file name.
    func serve(name: String, request: PlaylistRequest) -> HLSReply {
        guard let (rendition, resource) = resolve(name) else { return .notFound("no resource \(name)") }
        guard let rendition else { return serveMultivariant() }
        return serve(resource, of: rendition, request: request)
    }

    /// A single-rendition stream's resource (tests).
    func serve(_ resource: HLSResource, request: PlaylistRequest) -> HLSReply {
        guard resource != .multivariantPlaylist, let rendition = renditions.first else { return serveMultivariant() }
        return serve(resource, of: rendition, request: request)
    }

    func serve(_ resource: HLSResource, of rendition: HLSRendition, request: PlaylistRequest) -> HLSReply {
        guard let packager = rendition.packager, packager.hasContent else {
            if finished { return .notFound("the stream ended before any media was packaged") }
            return wait(for: .content, rendition, resource, request)  // every resource waits for the first part
        }
        switch resource {
        case .multivariantPlaylist:
            return serveMultivariant()
        case .mediaPlaylist:
            // RFC 8216bis §6.2.5.2: once the stream ended, blocking parameters are ignored.
            let decision = finished ? .respond(deltaUpdate: request.deltaUpdate) : packager.decide(request)
            switch decision {
            case .respond(let delta):
                return .content(renderedMediaPlaylist(of: rendition, deltaUpdate: delta),
                                contentType: resource.contentType, cacheControl: Self.playlistCache)
            case .wait(let target, _):
                return wait(for: .playlist(target), rendition, resource, request)
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
                return wait(for: .part(number), rendition, resource, request)
            case .notFound:
                return .notFound("no part \(number)")
            }
        }
    }

    /// Holds the request for `resource` until `target` is there; then it is served again,
    /// here on the LL-HLS loop, and the future carries that answer.
    private func wait(for target: Target, _ rendition: HLSRendition?, _ resource: HLSResource,
                      _ request: PlaylistRequest) -> HLSReply {
        if finished { return .notFound("the stream ended") }
        let promise = loop.makePromise(of: HLSReply.self)
        appendWaiter(Waiter(target: target, rendition: rendition, resource: resource, request: request, promise: promise,
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
        var still: [Waiter] = []
        for waiter in takeWaiters() {
            let ready: Bool
            if let rendition = waiter.rendition {
                guard let packager = rendition.packager else {
                    still.append(waiter)
                    continue
                }
                switch waiter.target {
                case .content: ready = packager.hasContent
                case .playlist(let target): ready = packager.progress.isSatisfied(target) || finished
                case .part(let number):
                    if case .pending = packager.part(number: number) { ready = finished } else { ready = true }
                }
            } else {
                ready = multivariantReady || finished
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
        let reply = waiter.rendition.map { serve(waiter.resource, of: $0, request: waiter.request) } ?? serveMultivariant()
        switch reply {
        case .wait(let next): waiter.promise.completeWith(next)
        case let reply: waiter.promise.succeed(reply)
        }
    }

    var waitingRequests: Int { waiterCount }
}
