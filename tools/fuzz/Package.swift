// swift-tools-version:6.2
// libFuzzer targets for OnAir's parsers of network bytes. A package of its own so the fuzz
// build (coverage + AddressSanitizer over every module) never touches the main build.
// Build and run through run.sh; see README.md.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// One executable per fuzz target: `fuzz-<name>` in Sources/fuzz-<name>/.
func fuzzTarget(_ name: String) -> Target {
    .executableTarget(
        name: "fuzz-\(name)",
        dependencies: ["FuzzSupport", .product(name: "OnAirProtocols", package: "OnAir")],
        swiftSettings: strict)
}

let package = Package(
    name: "OnAirFuzz",
    dependencies: [.package(name: "OnAir", path: "../..")],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: strict),
        fuzzTarget("stun"),
        fuzzTarget("rtp"),
        fuzzTarget("rtcp"),
        fuzzTarget("sdp"),
        fuzzTarget("dtls"),
        fuzzTarget("srtp"),
        fuzzTarget("h264"),
        fuzzTarget("chat"),
        fuzzTarget("webhook"),
        fuzzTarget("tcpframing"),
        fuzzTarget("turn"),
        fuzzTarget("token"),
    ]
)
