import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import OnAirWebhooks

/// Sends one signed delivery (Standard Webhooks "Sending"): POST of the stored body with
/// `webhook-id`, `webhook-timestamp` (the time of this attempt) and `webhook-signature`.
/// Connections are kept alive and reused per host.
public final class WebhookPoster: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount
    /// Response bodies are read (so the connection can be reused) but only this much of them.
    static let maxResponseBytes = 64 * 1024

    public init(timeoutSeconds: Double) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,  // a redirect is a failed delivery, not a hop elsewhere
            timeout: .init(connect: .seconds(5), read: .milliseconds(Int64(timeoutSeconds * 1000))),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 8))
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        timeout = .milliseconds(Int64(timeoutSeconds * 1000))
    }

    /// The headers of an attempt at `now`, signed with every one of `secrets`.
    public static func headers(eventID: String, body: [UInt8], secrets: [WebhookSecret], now: Double) -> [(String, String)] {
        let timestamp = Int64(now.rounded(.down))
        return [
            ("content-type", "application/json"),
            ("user-agent", "OnAir-Webhooks/1"),
            ("webhook-id", eventID),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", WebhookSignature.sign(id: eventID, timestamp: timestamp, body: body, secrets: secrets)),
        ]
    }

    /// Posts and reports what came back; never throws (a failure is a result to log).
    public func post(url: String, headers: [(String, String)], body: [UInt8]) async -> AttemptResult {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read > Self.maxResponseBytes { break }
            }
            return .response(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .failed("no response within \(timeout.nanoseconds / 1_000_000) ms")
        } catch is CancellationError {
            return .failed("cancelled (relay shutting down)")
        } catch {
            return .failed("\(error)")
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}
