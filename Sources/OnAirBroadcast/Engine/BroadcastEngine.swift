import Foundation
import OnAirDTLS
import OnAirMedia
import OnAirRateControl
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// `broadcast start`: opens the input, then publishes over WHIP (RFC 9725) until stopped,
/// reconnecting with a new WHIP session when the media path is lost. The media loop runs on a
/// thread of its own (poll(2) between media deadlines); signalling is async HTTP.
public final class BroadcastEngine: @unchecked Sendable {
    // @unchecked: the mutable state below is used by one thread at a time: the media thread
    // while a session runs, the caller's task between sessions (hand-over through a continuation).
    let settings: BroadcastSettings
    let stop: StopSignal
    let whip = WHIPClient()
    var pipeline: MediaPipeline!
    var statistics = BroadcastStatistics()
    var controller: BitrateController
    var transportFeedback = TransportFeedbackAdapter()
    var roundTrip = RoundTripEstimator()
    var resumeBackoff = ResumeBackoff()
    var status: StatusLine
    let cname = "onair-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    var deadline: UInt64?
    var lastForcedKeyframe: UInt64?
    var pendingKeyframe = false
    private var stateFile: BroadcastStateFile?

    public init(settings: BroadcastSettings, stop: StopSignal) {
        self.settings = settings
        self.stop = stop
        controller = BitrateController(minimum: settings.minimumBitrate, maximum: settings.maximumBitrate,
                                       start: settings.videoBitrate)
        status = StatusLine(isTerminal: isatty(STDOUT_FILENO) != 0, logIntervalSeconds: settings.logInterval)
    }

    /// Runs the broadcast; returns the process exit code. Messages go to stdout/stderr.
    public func run() async -> Int32 {
        defer { stateFile?.remove() }
        let code: Int32
        do {
            pipeline = try MediaSetup.pipeline(settings)
            // Simulcast: the controller steers the sum of the layers (RFC 8853), the top one's
            // share up to --max-bitrate.
            let lower = pipeline.allocator.lowerTotal
            controller = BitrateController(minimum: settings.minimumBitrate, maximum: pipeline.allocator.maximumTotal,
                                           start: settings.videoBitrate + lower)
            statistics.targetBitrate = settings.videoBitrate + lower
            statistics.layers = pipeline.isSimulcast ? pipeline.activeLayerNames : nil
            Console.info("broadcast: \(pipeline.source.summary), H.264 \(settings.preset) \(settings.videoBitrate / 1000) kbit/s"
                         + (pipeline.isSimulcast ? " + simulcast " + pipeline.layers.dropFirst().map { layer in
                             "\(layer.rid) \(layer.encoder.settings.width)x\(layer.encoder.settings.height)"
                                 + " \(layer.encoder.settings.bitrate / 1000)k" }.joined(separator: ", ") : "")
                         + (pipeline.opus == nil ? ", no audio" : ", Opus \(settings.audioBitrate / 1000) kbit/s")
                         + " -> \(settings.whipURL)")
            let end = try await publishWithReconnects()
            code = finish(end)
        } catch {
            status.finish()
            Console.error("broadcast: \(error.description)")
            writeStatistics(exitReason: "error")
            code = error.code.rawValue
        }
        await whip.shutdown()
        return code
    }

    private func publishWithReconnects() async throws(BroadcastError) -> SessionEnd {
        if let duration = settings.duration { deadline = Clocks.monotonic() + UInt64(duration * 1e9) }
        let certificate: DTLSCertificate
        do {
            certificate = try DTLSCertificate.generateECDSA(commonName: "onair-broadcast")
        } catch {
            throw BroadcastError(.failure, "cannot make a DTLS certificate: \(error)")
        }
        var failures = 0
        while true {
            let began = Clocks.monotonic()
            let end: SessionEnd
            do {
                end = try await publishOnce(certificate: certificate)
            } catch let error where statistics.startedAt != nil
                        && [.relayUnreachable, .rejected, .roomBusy].contains(error.code) {
                // We were live: the relay may be restarting, or still holding our old session.
                failures += 1
                guard failures <= settings.reconnectAttempts else {
                    throw BroadcastError(.connectionLost, "gave up after \(settings.reconnectAttempts) reconnect attempts; "
                                         + "last: \(error.description)")
                }
                await backoff(failures, because: error.description)
                if stop.isRequested { return .stopped(stop.reason) }
                continue
            }
            guard case .connectionLost(let reason) = end else { return end }
            if stop.isRequested { return .stopped(stop.reason) }
            // A session that lived a while was a success: count failures afresh.
            if Clocks.monotonic() - began > 30_000_000_000 { failures = 0 }
            failures += 1
            guard failures <= settings.reconnectAttempts else {
                throw BroadcastError(.connectionLost, "gave up after \(settings.reconnectAttempts) reconnect attempts; the media "
                                     + "connection was lost (\(reason)): check the UDP path to \(settings.whipURL)")
            }
            await backoff(failures, because: reason)
            if stop.isRequested { return .stopped(stop.reason) }
        }
    }

    /// Exponential backoff (1, 2, 4, 8 s, at most 10 s) with a message each try.
    private func backoff(_ attempt: Int, because reason: String) async {
        status.finish()
        let delay = min(10.0, pow(2.0, Double(attempt - 1)))
        Console.error("broadcast: connection lost (\(reason)); reconnecting in \(Int(delay)) s "
                      + "(attempt \(attempt) of \(settings.reconnectAttempts))")
        let until = Clocks.monotonic() + UInt64(delay * 1e9)
        while Clocks.monotonic() < until {
            if stop.isRequested { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
        statistics.reconnects += 1
    }

    /// One WHIP session: offer, answer, ICE + DTLS, media until it ends, then DELETE.
    private func publishOnce(certificate: DTLSCertificate) async throws(BroadcastError) -> SessionEnd {
        let socket = try MediaSocket()
        let relay = try await allocateRelay()
        defer { relay?.close() }
        socket.relay = relay
        let host = URL(string: settings.whipURL)?.host ?? "127.0.0.1"
        let level = H264Level(levelIDC: UInt8(pipeline.encoder.settings.levelIDC)) ?? .level3_1
        let offer = PublishOffer(port: socket.localPort, endpointHost: host, certificate: certificate,
                                 audio: pipeline.opus != nil, level: level,
                                 simulcastRIDs: pipeline.isSimulcast ? pipeline.layers.map(\.rid) : [],
                                 relay: relay?.relayedAddress.map { ($0, relay?.mappedAddress) },
                                 hostCandidates: !settings.relayOnly)
        let whipSession = try await whip.publish(offer: offer.description.serialize(), to: settings.whipURL, token: settings.token)
        stateFile = BroadcastStateFile.write(directory: settings.stateDirectory, room: settings.room,
                                             location: whipSession.location, whipURL: settings.whipURL)
        let connection: PublishingConnection
        do {
            connection = try Self.connect(offer: offer, answer: whipSession.answerSDP, socket: socket, level: level,
                                          layerRIDs: pipeline.layers.map(\.rid), relayOnly: settings.relayOnly)
            pipeline.accept(rids: connection.acceptedRIDs)
        } catch {
            await whip.delete(location: whipSession.location, token: settings.token)
            throw error
        }
        connection.onTransportPacketSent = { [unowned self] sequence, size, now in
            transportFeedback.recordSent(sequence: sequence, size: size, now: MonoTime(nanoseconds: now))
        }
        let end = await runMediaThread(connection)
        // DELETE first (RFC 9725 §4.3: the relay ends the stream now and says why), then close_notify.
        if case .connectionLost = end {} else {
            let deleted = await whip.delete(location: whipSession.location, token: settings.token)
            if deleted == nil || (deleted ?? 500) >= 300 {
                Console.error("broadcast: DELETE \(whipSession.location) failed (\(deleted.map { "HTTP \($0)" } ?? "unreachable"))")
            }
        }
        connection.close()
        return end
    }

    /// - Parameter relayOnly: check only the pairs of our relay candidate (``MediaSocket/relay``).
    static func connect(offer: PublishOffer, answer: String, socket: MediaSocket, level: H264Level,
                        layerRIDs: [String] = [""], relayOnly: Bool = false) throws(BroadcastError) -> PublishingConnection {
        let negotiated: NegotiatedSession
        do {
            let parsed = try SessionDescription.parse(answer)
            negotiated = try SDPNegotiator.acceptAnswer(answer: parsed, offer: offer.description)
        } catch {
            throw BroadcastError(.rejected, "the WHIP answer is not usable: \(error)")
        }
        if let agreed = negotiated.media(of: .video)?.codec.h264?.profileLevelID.level, agreed < level {
            Console.error("broadcast: warning: the answer agreed H.264 level \(agreed), our picture needs \(level); "
                          + "sending level \(level) (lower --size or --fps if the receiver cannot decode it)")
        }
        do {
            var parameters = try ClientPeerSessionParameters(negotiated: negotiated, localUfrag: offer.ufrag,
                                                             localPassword: offer.password, certificate: offer.certificate)
            // ICE-TCP (RFC 6544): the relay's passive TCP candidates after the UDP ones (lower
            // priority), so UDP is nominated wherever it gets through. Our sockets are IPv4.
            parameters.remoteCandidates += ClientPeerSessionParameters.passiveTCPAddresses(negotiated.remoteCandidates)
            parameters.remoteCandidates = parameters.remoteCandidates.filter(\.isIPv4)
            // The relay candidate's pairs (RFC 8445 §6.1.2.2: type preference 0) after the host
            // ones, so they are checked last (Ta apart) and win only where host and ICE-TCP fail;
            // or alone with relayOnly. The permissions go out now: checks wait for them.
            if let relay = socket.relay {
                let peers = parameters.remoteCandidates.filter { $0.transport == .udp }
                relay.permit(peers)
                let aliases = peers.map(RelayedPeerAlias.alias(of:))
                parameters.remoteCandidates = (relayOnly ? [] : parameters.remoteCandidates) + aliases
            } else if relayOnly {
                throw BroadcastError(.rejected, "relay-only without a TURN allocation")
            }
            guard !parameters.remoteCandidates.isEmpty else {
                throw BroadcastError(.rejected, "the WHIP answer has no IPv4 UDP or TCP candidate")
            }
            let session = try ClientPeerSession(parameters, now: MonoTime.now())
            return try PublishingConnection(session: session, socket: socket, negotiated: negotiated, ssrcs: offer.ssrcs,
                                            layerRIDs: layerRIDs)
        } catch let error as BroadcastError {
            throw error
        } catch {
            throw BroadcastError(.rejected, "cannot use the WHIP answer: \(error)")
        }
    }

    /// Runs the media loop on a dedicated thread (it blocks in poll(2)) and awaits its end.
    private func runMediaThread(_ connection: PublishingConnection) async -> SessionEnd {
        let handover = ThreadHandover(value: connection)
        return await withCheckedContinuation { (continuation: CheckedContinuation<SessionEnd, Never>) in
            let thread = Thread { [self] in
                continuation.resume(returning: mediaLoop(handover.value))
            }
            thread.name = "broadcast-media"
            thread.qualityOfService = .userInteractive
            thread.start()
        }
    }
}
