// swift-tools-version:6.2
// Writes the binary seeds of ../corpus (RTP, RTCP, STUN, DTLS, SRTP) with OnAir's own
// builders and a real in-memory DTLS handshake. Not part of the fuzz build: run it by hand
// when a harness's input format changes (see ../README.md). SDP seeds are captured offers,
// copied from Tests/OnAirSDPTests/Fixtures instead.
import PackageDescription

let package = Package(
    name: "OnAirFuzzSeeds",
    dependencies: [.package(name: "OnAir", path: "../../..")],
    targets: [
        .executableTarget(
            name: "make-seeds",
            dependencies: [.product(name: "OnAirProtocols", package: "OnAir")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
