import Foundation
import OnAirCrypto
import OnAirDTLS
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// WHIP/WHEP signalling on the engine's loop: offers in, sessions and answers out.
extension MediaPlane {
    package func createSession(kind: SessionKind, room roomID: String, offer text: String, maximumHeight: Int? = nil,
                               now: MonoTime) throws(EngineError) -> SessionCreated {
        guard sessions.count < settings.maxSessions else {
            throw .overloaded("the relay is at its limit of \(settings.maxSessions) sessions")
        }
        // Viewers are what loads the media loop (every packet is sent once per viewer); a
        // publisher adds one stream's worth and is always let in.
        if kind == .viewer && !mediaLoad.admitViewer(limit: settings.maxMediaLoad) {
            throw .overloaded("the relay's media loop is \(Int(mediaLoad.projectedLoad * 100)) % busy, counting the "
                              + "viewers just admitted (limit \(Int(settings.maxMediaLoad * 100)) %): no room for another viewer now")
        }
        let offer: SessionDescription
        do {
            offer = try SessionDescription.parse(text)
        } catch {
            throw .badRequest("the offer is not valid SDP: \(error)")
        }
        let credentials = ICECredentials.generate(using: environment)
        let local = LocalTransport(
            iceUfrag: credentials.ufrag, icePassword: credentials.password,
            fingerprint: DTLSFingerprint(algorithm: "sha-256", bytes: certificate.fingerprintSHA256),
            candidates: localCandidates(), iceLite: true)
        let session: MediaSession
        let answer: SessionDescription
        let room: Room
        switch kind {
        case .publisher:
            if let existing = rooms[roomID]?.publisher, !existing.ended {
                throw .roomBusy("room \(roomID) already has a live publisher; DELETE its session or wait for it to end")
            }
            if rooms[roomID]?.upstream != nil {
                throw .roomBusy("room \(roomID) is live on another media worker")
            }
            let negotiated: NegotiatedSession
            (answer, negotiated) = try negotiate { () throws(NegotiationError) in try SDPNegotiator.answerIngest(offer: offer, local: local) }
            let video = negotiated.media(of: .video)?.codec
            let peer = try makePeer(negotiated, credentials: credentials, kind: .publisher, now: now)
            let publisher = PublisherSession(
                id: ICECredentials.randomID(using: environment), room: roomID, peer: peer, negotiated: negotiated,
                localUfrag: credentials.ufrag, etag: ICECredentials.randomID(using: environment),
                cacheSize: settings.retransmitCacheSize, now: now)
            // Simulcast offers list several SSRCs: then the first packets decide.
            if negotiated.media(of: .video)?.rids.isEmpty ?? true {
                publisher.videoSource = SourceLock(ssrc: negotiated.media(of: .video)?.remoteSSRC)
            }
            publisher.audioSource = SourceLock(ssrc: negotiated.media(of: .audio)?.remoteSSRC)
            logger.debug("publisher negotiated", metadata: [
                "room": "\(roomID)", "twcc_ext": "\(publisher.transportSequenceExtensionID.map(String.init) ?? "none")",
                "video": "\(video.map { "\($0.name) pt=\($0.payloadType) fb=\($0.rtcpFeedback)" } ?? "none")",
                "extensions": "\(negotiated.media(of: .video)?.extensions ?? [:])"])
            room = rooms[roomID] ?? Room(id: roomID)
            room.publisher = publisher
            room.stream = publisher.stream
            room.tap = makeTap?(roomID, publisher)
            session = publisher
        case .viewer:
            guard let existing = rooms[roomID], existing.isLive, let stream = existing.stream else {
                throw .notLive("room \(roomID) is not live; retry later")
            }
            guard existing.viewers.count + existing.viewersElsewhere < settings.maxViewersPerRoom else {
                throw .overloaded("room \(roomID) is at its limit of \(settings.maxViewersPerRoom) viewers")
            }
            let ssrcs = LocalSSRCs(
                cname: ICECredentials.randomString(16, using: environment), streamID: "onair-\(roomID)",
                audio: stream.audioPayloadType == nil ? nil : .init(ssrc: environment.uint32(), trackID: "audio"),
                video: stream.videoPayloadType == nil ? nil
                    : .init(ssrc: environment.uint32(), rtxSSRC: environment.uint32(), trackID: "video"))
            let negotiated: NegotiatedSession
            (answer, negotiated) = try negotiate { () throws(NegotiationError) in
                try SDPNegotiator.answerEgress(offer: offer, local: local, source: stream.negotiated, localSSRCs: ssrcs)
            }
            let peer = try makePeer(negotiated, credentials: credentials, kind: .viewer, now: now)
            let viewer = ViewerSession(
                id: ICECredentials.randomID(using: environment), room: roomID, peer: peer, negotiated: negotiated,
                localUfrag: credentials.ufrag, etag: ICECredentials.randomID(using: environment),
                video: rewriter(for: .video, in: negotiated, fallbackSSRC: ssrcs.video?.ssrc),
                audio: rewriter(for: .audio, in: negotiated, fallbackSSRC: ssrcs.audio?.ssrc),
                cname: ssrcs.cname, maximumHeight: maximumHeight, startBitrate: Self.viewerStartBitrate,
                firstSequences: (environment.uint16(), environment.uint16()), now: now)
            room = existing
            room.viewers.append(viewer)
            room.peakViewers = max(room.peakViewers, room.viewers.count)
            session = viewer
        }
        rooms[roomID] = room
        session.hub = room
        sessions[session.id] = session
        sessionsByUfrag[credentials.ufrag] = session
        return SessionCreated(sessionID: session.id, room: roomID, kind: kind, answerSDP: answer.serialize(), etag: session.etag)
    }

    /// What a new viewer's link is assumed to carry until its feedback says otherwise
    /// (libwebrtc starts its estimate lower still; mediasoup at 600 kbit/s): it starts on the
    /// biggest layer within this, and probes take it higher within its first seconds. A top
    /// layer that fits a higher start (a simulcast publisher's f while it ramps up) overruns
    /// a thin link as soon as it reaches full rate, and the holes that leaves hold aiortc's
    /// jitter buffer up for many seconds.
    package static let viewerStartBitrate = 1_000_000

    /// Caps a viewer's layer (`nil`: automatic) and re-decides its layer at once.
    package func setLayerCap(id: String, room: String, maximumHeight: Int?, now: MonoTime) throws(EngineError) {
        guard let viewer = sessions[id] as? ViewerSession, viewer.room == room else { throw .unknownSession }
        viewer.selector.maximumHeight = maximumHeight
        if let room = rooms[room], viewer.connectedAt != nil { selectLayerNow(for: viewer, in: room, now: now) }
    }

    package func deleteSession(id: String, room: String, kind: SessionKind, now: MonoTime) throws(EngineError) {
        guard let session = sessions[id], session.room == room, session.kind == kind else { throw .unknownSession }
        end(session, reason: .publisherDeleted, now: now)
    }

    /// RFC 9725 §4.3: trickle candidates (nothing to do for an ICE-lite server that answers
    /// checks from any address, but the fragment is validated) or an ICE restart (new remote
    /// credentials: new local credentials, a new ETag, the answer fragment).
    package func patchSession(id: String, room: String, kind: SessionKind, ifMatch: String?, fragment text: String)
        throws(EngineError) -> SessionPatched
    {
        guard let session = sessions[id], session.room == room, session.kind == kind else { throw .unknownSession }
        let fragment: SDPFragment
        do {
            fragment = try SDPFragment.parse(text)
        } catch {
            throw .badRequest("the body is not a valid trickle-ice-sdpfrag: \(error)")
        }
        let matches = ifMatch.map { Self.strongEntityTags($0).contains(session.etag) || $0.trimmingCharacters(in: .whitespaces) == "*" }
        if matches == false { throw .preconditionFailed }
        guard let ufrag = fragment.announcedUfrag, ufrag != session.peer.ice.remoteUfrag else {
            return .trickleAccepted
        }
        guard ifMatch != nil else { throw .preconditionRequired }
        guard let password = fragment.announcedPassword else {
            throw .badRequest("an ICE restart needs both a=ice-ufrag and a=ice-pwd")
        }
        let credentials = ICECredentials.generate(using: environment)
        session.peer.restartICE(localUfrag: credentials.ufrag, localPassword: credentials.password,
                                remoteUfrag: ufrag, remotePassword: password)
        sessionsByUfrag[session.localUfrag] = nil
        session.localUfrag = credentials.ufrag
        sessionsByUfrag[credentials.ufrag] = session
        session.etag = ICECredentials.randomID(using: environment)
        let mids = session.negotiated.media.map { (mid: $0.mid, kind: $0.kind, candidates: localCandidates()) }
        let answer = SDPFragment(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                 candidates: mids, endOfCandidates: true)
        return .restarted(fragment: answer.serialize(), etag: session.etag)
    }

    // MARK: helpers

    /// One host candidate per advertised address on the shared UDP port (RFC 8839 §5.1;
    /// priority per RFC 8445 §5.1.2.1 with type preference 126 for host) and, with ICE-TCP,
    /// a passive TCP one (RFC 6544 §4.5). A TCP candidate's local preference is RFC 6544
    /// §4.2's, direction preference 4 (passive host) times 2^13 plus 8,191 less the address's
    /// index: always below a UDP one's 65,535 less the index, so a peer whose UDP works
    /// nominates UDP.
    package func localCandidates() -> [ICECandidate] {
        let udp = settings.candidateAddresses.enumerated().map { index, address in
            ICECandidate(foundation: "\(index + 1)", component: 1, transport: "udp",
                         priority: (126 << 24) | (UInt32(65_535 - index) << 8) | 255,
                         address: address, port: UInt16(settings.udpPort), type: .host)
        }
        guard let tcpPort = settings.tcpPort else { return udp }
        return udp + settings.candidateAddresses.enumerated().map { index, address in
            ICECandidate(foundation: "\(settings.candidateAddresses.count + index + 1)", component: 1, transport: "tcp",
                         priority: (126 << 24) | (UInt32(4 << 13 | (8_191 - index)) << 8) | 255,
                         address: address, port: UInt16(tcpPort), type: .host, tcpType: "passive")
        }
    }

    /// A viewer's consent lasts longer than a publisher's: a publisher's media never stops, so
    /// its silence is its end (an abrupt end must end the stream soon), while a receive-only
    /// peer may send nothing but RTCP every 5-9 s (RFC 3550 §6.2: GStreamer's libnice viewer)
    /// and STUN every 25 s.
    private func makePeer(_ negotiated: NegotiatedSession, credentials: ICECredentials, kind: SessionKind,
                          now: MonoTime) throws(EngineError) -> PeerSession {
        let consent = kind == .publisher ? settings.consentTimeoutSeconds : settings.viewerConsentTimeoutSeconds
        do {
            let fingerprint = try PeerFingerprint(algorithm: negotiated.remoteFingerprint.algorithm,
                                                  bytes: negotiated.remoteFingerprint.bytes)
            let parameters = PeerSessionParameters(
                localUfrag: credentials.ufrag, localPassword: credentials.password,
                remoteUfrag: negotiated.remoteUfrag, remotePassword: negotiated.remotePassword,
                certificate: certificate, remoteFingerprint: fingerprint,
                dtlsRole: negotiated.localSetup == .active ? .client : .server,
                consentTimeout: .milliseconds(Int64(consent * 1000)),
                connectTimeout: .milliseconds(Int64(settings.connectTimeoutSeconds * 1000)))
            return try PeerSession(parameters, now: now)
        } catch let error as DTLSError {
            throw .unprocessable("cannot use the offer's DTLS fingerprint: \(error)")
        } catch {
            throw .unprocessable("cannot set up DTLS: \(error)")
        }
    }

    private func negotiate(_ body: () throws(NegotiationError) -> (SessionDescription, NegotiatedSession))
        throws(EngineError) -> (SessionDescription, NegotiatedSession)
    {
        do {
            return try body()
        } catch {
            throw error.status == 400 ? .badRequest(error.reason) : .unprocessable(error.reason)
        }
    }

    private func rewriter(for kind: MediaKind, in negotiated: NegotiatedSession, fallbackSSRC: UInt32?) -> TrackRewriter? {
        guard let media = negotiated.media(of: kind), let ssrc = media.localSSRC ?? fallbackSSRC else { return nil }
        return TrackRewriter(ssrc: ssrc, payloadType: media.codec.payloadType, waitsForKeyframe: kind == .video,
                             initialSequence: environment.uint16(), initialTimestamp: environment.uint32())
    }

    /// The strong entity tags in an If-Match value, without quotes. RFC 9110 §13.1.1: If-Match
    /// uses the strong comparison, so a weak tag (W/"...") never matches.
    package static func strongEntityTags(_ header: String) -> [String] {
        header.split(separator: ",").compactMap { tag in
            let t = tag.trimmingCharacters(in: .whitespaces)
            guard !t.hasPrefix("W/") else { return nil }
            return t.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }
}
