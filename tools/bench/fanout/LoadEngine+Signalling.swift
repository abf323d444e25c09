import BenchSupport
import OnAirCrypto
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// WHIP for the publisher, WHEP for the viewers: offers out, answers into sessions.
extension LoadEngine {
    /// Publishes over WHIP and waits until media flows (DTLS done), then starts the stream.
    func connectPublisher(timeoutSeconds: Double) throws {
        let endpoint = try UDPEndpoint(receiveBuffer: settings.receiveBuffer, kernelTimestamps: false)
        let credentials = ClientPeerSessionParameters.generateCredentials()
        let candidate = ICECandidate(foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431,
                                     address: "127.0.0.1", port: endpoint.localPort, type: .host)
        let local = LocalTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                                   fingerprint: DTLSFingerprint(algorithm: "sha-256", bytes: certificate.fingerprintSHA256),
                                   candidates: [candidate], iceLite: false)
        let ssrcs = LocalSSRCs(cname: "fanout-bench", streamID: "fanout-bench",
                               audio: .init(ssrc: SecureRandom.uint32(), trackID: "audio"),
                               video: .init(ssrc: SecureRandom.uint32(), trackID: "video"))
        let offer = SDPNegotiator.makeOffer(local: local, ssrcs: ssrcs)
        let response = try client.request("POST", path: "/whip/\(settings.room)", contentType: "application/sdp", body: offer.serialize())
        guard response.status == 201 else { throw BenchError("WHIP POST: HTTP \(response.status): \(response.body)") }
        publisherLocation = response.header("Location")
        let negotiated: NegotiatedSession
        do {
            negotiated = try SDPNegotiator.acceptAnswer(answer: try SessionDescription.parse(response.body), offer: offer)
        } catch {
            throw BenchError("WHIP answer unusable: \(error)\n\(response.body)")
        }
        guard let video = negotiated.media(of: .video), let audio = negotiated.media(of: .audio) else {
            throw BenchError("the WHIP answer did not accept both audio and video")
        }
        let parameters = try ClientPeerSessionParameters(negotiated: negotiated, localUfrag: credentials.ufrag,
                                                         localPassword: credentials.password, certificate: certificate)
        let session = try ClientPeerSession(parameters, now: MonoTime.now())
        let publisher = Publisher(endpoint: endpoint, session: session, videoPayloadType: video.codec.payloadType,
                                  audioPayloadType: audio.codec.payloadType, videoSSRC: ssrcs.video!.ssrc,
                                  audioSSRC: ssrcs.audio!.ssrc, model: settings.model)
        self.publisher = publisher
        runTimers(now: BenchClock.monotonic())
        pump(until: BenchClock.monotonic() + UInt64(timeoutSeconds * 1e9)) { session.canSendMedia || session.state == .closed }
        guard session.canSendMedia else { throw BenchError("the publisher did not connect (state \(session.state))") }
        publisher.start(now: BenchClock.monotonic())
    }

    /// Opens viewers until there are `total`; their offers go out on the signalling threads.
    func addViewers(upTo total: Int) throws {
        let fingerprint = "sha-256 " + Hex.encode(certificate.fingerprintSHA256, separator: ":", uppercase: true)
        while viewers.count < total {
            let endpoint = try UDPEndpoint(receiveBuffer: settings.receiveBuffer, kernelTimestamps: true)
            let credentials = ClientPeerSessionParameters.generateCredentials()
            let viewer = Viewer(index: viewers.count, endpoint: endpoint, ufrag: credentials.ufrag, password: credentials.password,
                                rtcpSSRC: SecureRandom.uint32(), sampleEvery: settings.sampleEvery)
            viewers.append(viewer)
            let offer = ReceiveOnlyOffer(ufrag: credentials.ufrag, password: credentials.password, fingerprint: fingerprint,
                                    candidate: ("127.0.0.1", endpoint.localPort), sessionID: SecureRandom.uint64() >> 2,
                                         transportCC: settings.transportCC)
            pool.post(path: "/whep/\(settings.room)", offer: offer.sdp, tag: viewer.index)
        }
    }

    /// Turns finished WHEP POSTs into sessions and sends their first checks.
    func acceptAnswers() {
        for result in pool.takeFinished() {
            let viewer = viewers[result.tag]
            switch result.outcome {
            case .failure(let error):
                viewer.phase = .failed("WHEP POST: \(error)")
            case .success(let response) where response.status == 503:
                viewer.phase = .refused
            case .success(let response) where response.status != 201:
                viewer.phase = .failed("WHEP POST: HTTP \(response.status): \(response.body.prefix(200))")
            case .success(let response):
                do {
                    let answer = try SessionDescription.parse(response.body)
                    let types = ReceiveOnlyOffer.payloadTypes(in: answer)
                    viewer.audioPayloadType = types.audio ?? 0xFF
                    viewer.videoPayloadType = types.video ?? 0xFF
                    var parameters = try ClientPeerSessionParameters(answer: answer, localUfrag: viewer.ufrag,
                                                                     localPassword: viewer.password, certificate: certificate)
                    if settings.tcp {
                        parameters.remoteCandidates = ClientPeerSessionParameters.passiveTCPAddresses(answer.media.flatMap(\.candidates))
                    }
                    let session = try ClientPeerSession(parameters, now: MonoTime.now())
                    viewer.session = session
                    viewer.phase = .connecting
                    events.removeAll(keepingCapacity: true)
                    session.poll(now: MonoTime.now(), events: &events)
                    handle(events, of: viewer)
                } catch {
                    viewer.phase = .failed("WHEP answer: \(error)")
                }
            }
        }
    }

    /// Pumps until every viewer connected or failed, or the timeout passed.
    func waitForViewers(timeoutSeconds: Double) {
        pump(until: BenchClock.monotonic() + UInt64(timeoutSeconds * 1e9)) { [viewers] in viewers.allSatisfy(\.isSettled) }
    }

    /// close_notify from every session (RFC 5246 §7.2.1), so the relay ends them at once.
    func closeAll() {
        let now = MonoTime.now()
        for viewer in viewers {
            guard let session = viewer.session else { continue }
            events.removeAll(keepingCapacity: true)
            session.close(now: now, events: &events)
            for case .send(let bytes, let address) in events { viewer.send(bytes, to: address) }
        }
        if let publisher {
            events.removeAll(keepingCapacity: true)
            publisher.session.close(now: now, events: &events)
            for case .send(let bytes, let address) in events { publisher.endpoint.send(bytes, to: address) }
        }
    }
}
