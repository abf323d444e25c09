import Foundation
import OnAirDTLS
import OnAirSDP
import OnAirWire

/// `broadcast doctor`: a WHIP pre-flight a user runs before going live. Each step prints PASS or
/// FAIL with what to fix; later steps are skipped once one fails that they depend on. It
/// publishes a short test pattern for real (RFC 9725 POST, ICE, DTLS, SRTP), so it proves the
/// same path `broadcast start` takes, then DELETEs the session.
public final class BroadcastDoctor: @unchecked Sendable {
    // @unchecked: used from one task; the media thread runs while the task awaits it.
    let whipURL: String
    let token: String?
    private var failures = 0

    public init(whipURL: String, token: String?) {
        self.whipURL = whipURL
        self.token = token
    }

    /// Runs every check; true when all passed.
    public func run() async -> Bool {
        let client = WHIPClient(requestTimeout: .seconds(5))
        defer { Task { await client.shutdown() } }
        Console.info("broadcast doctor: \(whipURL)")
        // 1-2. Reachability, OPTIONS and CORS (RFC 9725 §4.2 CORS pre-flight, Accept-Post).
        do {
            let (status, headers) = try await client.options(url: whipURL)
            report(true, "relay reachable", "HTTP \(status) to OPTIONS")
            let allowOrigin = headers.first(name: "Access-Control-Allow-Origin")
            let acceptPost = headers.first(name: "Accept-Post") ?? ""
            report((200..<300).contains(status) && allowOrigin != nil,
                   "OPTIONS answers with CORS", allowOrigin.map { "Access-Control-Allow-Origin: \($0)" }
                       ?? "no Access-Control-Allow-Origin: browsers cannot publish here (enable CORS on the endpoint)")
            report(acceptPost.contains("application/sdp"), "Accept-Post: application/sdp",
                   acceptPost.isEmpty ? "missing (RFC 9725 §4.2 asks for it)" : acceptPost, required: false)
        } catch {
            report(false, "relay reachable", error.description)
            return finish()
        }
        // 3-5. Auth, answer headers, codec agreement.
        let pipeline: MediaPipeline
        let socket: MediaSocket
        do {
            var settings = BroadcastSettings(room: "doctor", whipURL: whipURL, token: token, size: (640, 360), framesPerSecond: 15,
                                             videoBitrate: 500_000)
            settings.gop = 300
            pipeline = try MediaSetup.pipeline(settings)
            socket = try MediaSocket()
        } catch {
            report(false, "local media setup", error.description)
            return finish()
        }
        let certificate: DTLSCertificate
        do { certificate = try DTLSCertificate.generateECDSA(commonName: "onair-doctor") } catch {
            report(false, "DTLS certificate", "\(error)")
            return finish()
        }
        let level = H264Level(levelIDC: UInt8(pipeline.encoder.settings.levelIDC)) ?? .level3_1
        let offer = PublishOffer(port: socket.localPort, endpointHost: URL(string: whipURL)?.host ?? "127.0.0.1",
                                 certificate: certificate, audio: true, level: level)
        let session: WHIPSession
        do {
            session = try await client.publish(offer: offer.description.serialize(), to: whipURL, token: token)
            report(true, "token accepted", token == nil ? "no token needed" : "Bearer token accepted")
        } catch {
            report(false, error.code == .unauthorized ? "token accepted" : "WHIP POST accepted", error.description)
            return finish()
        }
        report(true, "answer has Location", session.location)
        report(session.etag != nil, "answer has ETag", session.etag ?? "missing: ICE restarts (PATCH with If-Match) will not work",
               required: false)
        let connection: PublishingConnection
        do {
            connection = try BroadcastEngine.connect(offer: offer, answer: session.answerSDP, socket: socket, level: level)
            let answer = try SessionDescription.parse(session.answerSDP)
            let negotiated = try SDPNegotiator.acceptAnswer(answer: answer, offer: offer.description)
            let video = negotiated.media(of: .video)
            let plid = video?.codec.h264?.profileLevelID
            report(true, "codecs agreed", "H.264 PT \(connection.video.payloadType) profile-level-id \(plid?.hexString ?? "?")"
                   + (connection.audio.map { ", Opus PT \($0.payloadType)" } ?? ", no audio"))
        } catch {
            report(false, "codecs agreed", error is BroadcastError ? (error as! BroadcastError).description : "\(error)")
            await client.delete(location: session.location, token: token)
            return finish()
        }
        // 6-7. UDP path and a keyframe request answered, on the media thread.
        let handover = ThreadHandover(value: (connection, pipeline))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<DoctorMediaResult, Never>) in
            let thread = Thread {
                continuation.resume(returning: DoctorMediaCheck.run(handover.value.0, pipeline: handover.value.1))
            }
            thread.start()
        }
        report(result.connectedAfter != nil, "UDP path: ICE + DTLS",
               result.connectedAfter.map { String(format: "connected in %.0f ms (SRTP %@)", $0 * 1000, result.profile) }
                   ?? "no connection in 10 s: UDP to the relay's candidates is blocked, or its advertised address is wrong")
        if result.connectedAfter != nil {
            if let roundTrip = result.keyframeRoundTrip {
                report(true, "keyframe request round trip", String(format: "PLI answered with an IDR in %.1f ms", roundTrip * 1000))
            } else {
                report(false, "keyframe request round trip",
                       "no PLI/FIR from the endpoint in 4 s (it may ask only when a viewer joins)", required: false)
            }
            report(result.rtcpSeen, "RTCP from the endpoint", result.rtcpSeen ? "receiver feedback arrives"
                   : "nothing in 4 s: bitrate adaptation will be blind", required: false)
        }
        let deleted = await client.delete(location: session.location, token: token)
        report(deleted.map { $0 < 300 } ?? false, "DELETE ends the session", deleted.map { "HTTP \($0)" } ?? "unreachable")
        connection.close()
        return finish()
    }

    private func report(_ passed: Bool, _ check: String, _ detail: String, required: Bool = true) {
        let mark = passed ? "PASS" : (required ? "FAIL" : "WARN")
        if !passed && required { failures += 1 }
        Console.info("  [\(mark)] \(check): \(detail)")
    }

    private func finish() -> Bool {
        Console.info(failures == 0 ? "all checks passed: ready to go live" : "\(failures) check(s) failed")
        return failures == 0
    }
}
