// swift-tools-version:6.2
// OnAir: WHIP/WHEP relay, LL-HLS packager, broadcaster CLI and chat sidecar.
// Layers (../shared/ARCHITECTURE.md): C system libraries -> pure protocol core ->
// sans-I/O C wrappers -> I/O runtime -> thin executables. Dependencies point down only.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]
// The media path (per packet: receive, SRTP, rewrite, fan-out, send) is optimized in debug
// builds too: the interop suite runs a debug relay under the load users give a release one
// (fanout-bench, 200 transport-cc viewers of a 2.5 Mbit/s stream: 14.4 µs a packet at -Onone,
// which would take 108 % of a core; 7.2 µs and 53 % with this; a release build 4-6 µs).
let mediaPath: [SwiftSetting] = strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "OnAir",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "relay", targets: ["relay"]),
        .executable(name: "chat", targets: ["chat"]),
        .executable(name: "broadcast", targets: ["broadcast"]),
        .executable(name: "fanout-bench", targets: ["fanout-bench"]),
        .executable(name: "token-bench", targets: ["token-bench"]),
        .executable(name: "plane-allocations", targets: ["plane-allocations"]),
        // Libraries so that tools/fuzz (a separate package) can link the parsers.
        .library(name: "OnAirProtocols", targets: ["OnAirWire", "OnAirSDP", "OnAirRTP", "OnAirPayload", "OnAirSTUN", "OnAirCrypto", "OnAirDTLS",
                                                 "OnAirWebRTC", "OnAirHLS", "OnAirWebhooks", "OnAirChatProtocol",
                                                 "OnAirTokenFormat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"5.0.0"),
    ],
    targets: [
        // L0: C system libraries (a modulemap + shim header each; no Swift).
        .systemLibrary(name: "CLiveOpenSSL", path: "Sources/CLiveOpenSSL"),
        // sendmmsg/recvmmsg (glibc declares them only with _GNU_SOURCE).
        .systemLibrary(name: "CLiveSocket", path: "Sources/CLiveSocket"),
        // Media libraries for the broadcaster and the HLS packager (issue 3/4).
        .systemLibrary(name: "CLiveFFmpeg", path: "Sources/CLiveFFmpeg"),
        .systemLibrary(name: "CLiveX264", path: "Sources/CLiveX264"),
        .systemLibrary(name: "CLiveOpus", path: "Sources/CLiveOpus"),
        // libsrtp2: an outside reference for SRTP tests only.
        .systemLibrary(name: "CLiveSRTP", path: "Sources/CLiveSRTP"),

        // L1: pure protocol core. No sockets, no clocks, no C.
        .target(name: "OnAirWire", swiftSettings: mediaPath),
        .target(name: "OnAirSDP", dependencies: ["OnAirWire"], swiftSettings: strict),
        .target(name: "OnAirRTP", dependencies: ["OnAirWire"], swiftSettings: mediaPath),
        // RTP payload formats (H.264 RFC 6184, Opus RFC 7587) and the H.264 bitstream (Annex B,
        // AVCC, SPS): shared by the broadcaster's packetizer and the HLS depacketizer.
        .target(name: "OnAirPayload", dependencies: ["OnAirWire", "OnAirRTP"], swiftSettings: strict),
        // The broadcaster's test pattern: picture with frame counter and a wall-clock barcode,
        // beeping tone (issue 3). Pure: drawn into caller-owned planes.
        .target(name: "OnAirTestPattern", swiftSettings: strict),
        // Sender-side congestion control and link quality (RTCP RR, REMB, transport-cc), pure.
        .target(name: "OnAirRateControl", dependencies: ["OnAirWire", "OnAirRTP"], swiftSettings: mediaPath),
        // LL-HLS: fMP4/CMAF boxes, segmenter, playlists (RFC 8216bis), pure.
        .target(name: "OnAirHLS", dependencies: ["OnAirWire", "OnAirPayload"], swiftSettings: strict),
        // The relay's forwarding core, sans-I/O: per-viewer rewriting, layer choice, bandwidth
        // estimation and probing. Values in, values out; the relay's I/O layer feeds it.

        // L2: sans-I/O wrappers of C libraries.
        .target(name: "OnAirCrypto", dependencies: ["CLiveOpenSSL", "OnAirWire"], swiftSettings: mediaPath),
        .target(name: "OnAirSTUN", dependencies: ["OnAirWire", "OnAirCrypto"], swiftSettings: strict),
        // DTLS-SRTP for WebRTC (RFC 5764) and a TLS client stream for `turns:` (RFC 8656 §3.1),
        // both OpenSSL through memory BIOs.
        .target(name: "OnAirDTLS", dependencies: ["CLiveOpenSSL", "OnAirWire", "OnAirCrypto"], swiftSettings: strict),
        // Standard Webhooks signing/verification and the stream event envelope (shared by
        // the relay, which signs, and the chat sidecar, which verifies).
        .target(name: "OnAirWebhooks", dependencies: ["OnAirCrypto"], swiftSettings: strict),
        // The chat's client protocol: the frames a client sends and what their texts may hold.
        .target(name: "OnAirChatProtocol", swiftSettings: strict),
        // Access tokens on the wire, pure: compact JWS (RFC 7515 §7.1), base64url, the JOSE
        // header, the claims (RFC 7519) and why a token is refused. No keys, no crypto.
        .target(name: "OnAirTokenFormat", swiftSettings: strict),
        // Strict decoding of config files and request bodies, shared by the relay and the chat.
        .target(name: "OnAirDecoding", swiftSettings: strict),
        // Opus -> AAC for HLS through libavcodec.
        .target(name: "OnAirTranscode", dependencies: ["CLiveFFmpeg"], swiftSettings: strict),
        .target(name: "OnAirWebRTC",
                dependencies: ["OnAirWire", "OnAirSDP", "OnAirRTP", "OnAirCrypto", "OnAirSTUN", "OnAirDTLS"],
                swiftSettings: mediaPath),
        // The relay's media plane, sans I/O: rooms and sessions, the datagram router, per-viewer
        // rewriting, layer choice, bandwidth estimation, probing, NACK and keyframe handling.
        // Datagrams in, datagrams out through a sink; time is passed in. The relay's I/O layer
        // (UDP socket, event loop, HTTP) drives it; tests drive it in-process with a manual clock.
        .target(name: "OnAirForwarding",
                dependencies: ["OnAirWire", "OnAirRTP", "OnAirRateControl", "OnAirPayload", "OnAirSDP", "OnAirCrypto", "OnAirDTLS",
                               "OnAirWebRTC", .product(name: "Logging", package: "swift-log")],
                swiftSettings: mediaPath),
        // Encoders and sources for the broadcaster: x264, libopus, libavformat/libavdevice input.
        .target(name: "OnAirMedia", dependencies: ["CLiveFFmpeg", "CLiveX264", "CLiveOpus", "OnAirTranscode", "OnAirTestPattern"],
                swiftSettings: strict),

        // L3: I/O and runtime.
        // What the relay's and the chat's HTTP servers share: one CORS policy and middleware,
        // the OpenAPI document route.
        .target(name: "OnAirHTTP",
                dependencies: [.product(name: "Hummingbird", package: "hummingbird"),
                               .product(name: "HTTPTypes", package: "swift-http-types")],
                swiftSettings: strict),
        // PostgreSQL for many nodes: database URLs, versioned migrations under an advisory lock,
        // a LISTEN connection that reconnects, a batched NOTIFY doorbell. Shared by the relay and the chat.
        .target(name: "OnAirPostgres",
                dependencies: [.product(name: "PostgresNIO", package: "postgres-nio"),
                               .product(name: "NIOSSL", package: "swift-nio-ssl"),
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),
        // Access tokens (JWT, RFC 7519) signed by the app's backend: claims, keys (HS256 secret,
        // JWKS file or URL refreshed in the background), verification with a cache, minting.
        .target(name: "OnAirAuth",
                dependencies: ["OnAirTokenFormat", "OnAirDecoding", .product(name: "JWTKit", package: "jwt-kit"),
                               .product(name: "Crypto", package: "swift-crypto"),
                               .product(name: "AsyncHTTPClient", package: "async-http-client"),
                               .product(name: "NIOCore", package: "swift-nio"),
                               .product(name: "Logging", package: "swift-log"),
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                swiftSettings: strict),
        .target(name: "OnAirRelay",
                dependencies: [
                    "OnAirAuth", "OnAirTokenFormat", "OnAirWebRTC", "OnAirSDP", "OnAirRTP", "CLiveSocket", "OnAirWebhooks", "OnAirDecoding", "OnAirHTTP",
                    "OnAirHLS", "OnAirPayload", "OnAirTranscode", "OnAirForwarding", "OnAirPostgres", "OnAirCrypto",
                    .product(name: "PostgresNIO", package: "postgres-nio"),
                    .product(name: "GRDB", package: "GRDB.swift"),
                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOPosix", package: "swift-nio"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "Metrics", package: "swift-metrics"),
                    .product(name: "Prometheus", package: "swift-prometheus"),
                    .product(name: "Hummingbird", package: "hummingbird"),
                    .product(name: "HTTPTypes", package: "swift-http-types"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    .product(name: "Yams", package: "Yams"),
                ],
                resources: [.copy("Web")],
                swiftSettings: mediaPath),

        // The WHIP publisher: pipeline, RTP sender, feedback handling, WHIP client.
        .target(name: "OnAirBroadcast",
                dependencies: [
                    "OnAirWebRTC", "OnAirSDP", "OnAirRTP", "OnAirPayload", "OnAirMedia", "OnAirRateControl",
                    "OnAirTestPattern", "OnAirSTUN", "OnAirDTLS", "CLiveSocket",
                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOHTTP1", package: "swift-nio"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "Yams", package: "Yams"),
                ],
                swiftSettings: strict),

        .target(name: "OnAirChat",
                dependencies: [
                    "OnAirAuth", "OnAirTokenFormat", "OnAirWebhooks", "OnAirDecoding", "OnAirHTTP", "OnAirChatProtocol", "OnAirPostgres",
                    .product(name: "PostgresNIO", package: "postgres-nio"),
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "Hummingbird", package: "hummingbird"),
                    .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                    .product(name: "HTTPTypes", package: "swift-http-types"),
                    .product(name: "GRDB", package: "GRDB.swift"),
                    .product(name: "Logging", package: "swift-log"),
                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                    .product(name: "Yams", package: "Yams"),
                ],
                resources: [.copy("Web")],
                swiftSettings: strict),

        // L4: thin executables.
        // `token create`, one implementation for `relay token create` and `chat token create`.
        .target(name: "OnAirTokenCommand",
                dependencies: ["OnAirAuth", "OnAirTokenFormat", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                swiftSettings: strict),
        .executableTarget(name: "relay",
                          dependencies: ["OnAirRelay", "OnAirTokenCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: strict),

        .executableTarget(name: "broadcast",
                          dependencies: ["OnAirBroadcast", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: strict),

        .executableTarget(name: "chat",
                          dependencies: ["OnAirChat", "OnAirTokenCommand", .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: strict),

        // Benchmarks: programs that print figures (tools/bench/...), and what they share.
        .target(name: "BenchSupport", path: "tools/bench/common", swiftSettings: strict),
        // Counts the media plane's per-packet allocations in a release build (run by tools/test.sh).
        .executableTarget(name: "plane-allocations", dependencies: ["OnAirPlaneHarness", "OnAirWire"],
                          path: "tools/bench/allocations", swiftSettings: strict),
        .executableTarget(name: "fanout-bench",
                          dependencies: ["BenchSupport", "OnAirWebRTC", "OnAirSDP", "OnAirRTP", "OnAirCrypto", "OnAirDTLS", "OnAirSTUN", "CLiveSocket",
                                         "OnAirForwarding",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "tools/bench/fanout",
                          swiftSettings: strict),
        // Webhook delivery figures (issue 5): latency of stream.ended, signed deliveries/s.
        .executableTarget(name: "webhooks-bench",
                          dependencies: ["BenchSupport", "OnAirRelay", "OnAirForwarding", "OnAirWebhooks", "OnAirPostgres",
                                         .product(name: "PostgresNIO", package: "postgres-nio"),
                                         .product(name: "Hummingbird", package: "hummingbird"),
                                         .product(name: "HTTPTypes", package: "swift-http-types"),
                                         .product(name: "Logging", package: "swift-log"),
                                         .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
                          path: "tools/bench/webhooks",
                          exclude: ["delete_latency.py", "README.md"],
                          swiftSettings: strict),
        // Chat fan-out figures (issue 5): one room, N WebSocket clients, deliveries/s per core, p99 latency.
        .executableTarget(name: "chat-bench",
                          dependencies: [.product(name: "NIOCore", package: "swift-nio"),
                                         .product(name: "NIOPosix", package: "swift-nio"),
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "tools/bench/chat",
                          swiftSettings: strict),

        // Access-token verification figures (issue 28): µs per HS256/ES256 verification, cold and cached.
        .executableTarget(name: "token-bench",
                          dependencies: ["BenchSupport", "OnAirAuth", "OnAirTokenFormat", .product(name: "JWTKit", package: "jwt-kit"),
                                         .product(name: "Crypto", package: "swift-crypto"),
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "tools/bench/token",
                          swiftSettings: strict),

        // Broadcaster media figures (issue 3): Opus encode cost, x264 + pipeline cost per frame.
        .executableTarget(name: "media-bench",
                          dependencies: ["BenchSupport", "OnAirMedia", "OnAirTestPattern",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "tools/bench/media",
                          swiftSettings: strict),

        // Shared by the test targets (a deterministic generator for randomised tests).
        .target(name: "OnAirTestSupport", path: "Tests/OnAirTestSupport", swiftSettings: strict),
        // Counts one thread's heap allocations (it replaces malloc and friends in the test
        // executable): "the media path allocates nothing" as a test that can fail.
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        // The media plane in-process with real peers and a manual clock: for its tests, and
        // for the release-built allocation check (tools/bench/allocations).
        .target(name: "OnAirPlaneHarness",
                dependencies: ["OnAirForwarding", "OnAirRTP", "OnAirPayload", "OnAirWire", "OnAirSDP", "OnAirWebRTC", "OnAirDTLS",
                               "OnAirCrypto", "CAllocationCounter", .product(name: "Logging", package: "swift-log")],
                path: "Tests/OnAirPlaneHarness", swiftSettings: strict),
        .testTarget(name: "OnAirWireTests", dependencies: ["OnAirWire"], swiftSettings: strict),
        .testTarget(name: "OnAirDecodingTests", dependencies: ["OnAirDecoding"], swiftSettings: strict),
        .testTarget(name: "OnAirHTTPTests", dependencies: ["OnAirHTTP", .product(name: "HTTPTypes", package: "swift-http-types")],
                    swiftSettings: strict),
        .testTarget(name: "OnAirSDPTests", dependencies: ["OnAirSDP"], swiftSettings: strict),
        .testTarget(name: "OnAirRTPTests", dependencies: ["OnAirTestSupport", "OnAirRTP"], swiftSettings: strict),
        .testTarget(name: "OnAirCryptoTests", dependencies: ["OnAirCrypto", "CLiveSRTP"], swiftSettings: strict),
        .testTarget(name: "OnAirSTUNTests", dependencies: ["OnAirTestSupport", "OnAirSTUN"], swiftSettings: strict),
        .testTarget(name: "OnAirDTLSTests", dependencies: ["OnAirTestSupport", "OnAirDTLS", "OnAirCrypto", "CLiveOpenSSL", "CAllocationCounter"],
                    swiftSettings: strict),
        .testTarget(name: "OnAirWebRTCTests", dependencies: ["OnAirWebRTC"], swiftSettings: strict),
        .testTarget(name: "OnAirPayloadTests", dependencies: ["OnAirTestSupport", "OnAirPayload", "OnAirRTP"], swiftSettings: strict),
        .testTarget(name: "OnAirHLSTests", dependencies: ["OnAirHLS", "OnAirPayload"], swiftSettings: strict),
        .testTarget(name: "OnAirTranscodeTests", dependencies: ["OnAirTranscode", "CLiveFFmpeg"], swiftSettings: strict),
        .testTarget(name: "OnAirTestPatternTests", dependencies: ["OnAirTestSupport", "OnAirTestPattern"], swiftSettings: strict),
        .testTarget(name: "OnAirRateControlTests", dependencies: ["OnAirTestSupport", "OnAirRateControl", "OnAirRTP", "OnAirWire"], swiftSettings: strict),
        .testTarget(name: "OnAirForwardingTests", dependencies: ["OnAirTestSupport", "OnAirForwarding", "OnAirRTP", "OnAirPayload", "OnAirWire",
                                                                  "OnAirSDP", "OnAirWebRTC", "OnAirDTLS", "OnAirCrypto", "OnAirPlaneHarness",
                                                                  .product(name: "Logging", package: "swift-log")],
                    swiftSettings: strict),
        .testTarget(name: "OnAirMediaTests", dependencies: ["OnAirMedia", "OnAirPayload"], swiftSettings: strict),
        .testTarget(name: "OnAirBroadcastTests", dependencies: ["OnAirBroadcast", "OnAirSTUN", "OnAirWire"], swiftSettings: strict),
        .testTarget(name: "OnAirAuthTests", dependencies: ["OnAirAuth", "OnAirTokenFormat", "OnAirTokenCommand", .product(name: "JWTKit", package: "jwt-kit"),
                                                          .product(name: "Crypto", package: "swift-crypto")],
                    swiftSettings: strict),
        .testTarget(name: "OnAirWebhooksTests", dependencies: ["OnAirWebhooks"], swiftSettings: strict),
        .testTarget(name: "OnAirPostgresTests",
                    dependencies: ["OnAirPostgres", "OnAirTestSupport", .product(name: "PostgresNIO", package: "postgres-nio")],
                    swiftSettings: strict),
        .testTarget(name: "OnAirChatTests",
                    dependencies: ["OnAirChat", "OnAirAuth", "OnAirTokenFormat", "OnAirWebhooks", "OnAirChatProtocol", "OnAirTestSupport", "OnAirPostgres",
                                   .product(name: "HummingbirdTesting", package: "hummingbird"),
                                   .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket")],
                    swiftSettings: strict),
        .testTarget(name: "OnAirRelayTests",
                    dependencies: ["OnAirRelay", "OnAirAuth", "OnAirTokenFormat", "OnAirForwarding", "OnAirTestSupport", "OnAirHTTP", "OnAirPostgres",
                                   .product(name: "HummingbirdTesting", package: "hummingbird")],
                    swiftSettings: strict),
    ]
)
