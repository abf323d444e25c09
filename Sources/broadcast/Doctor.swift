import ArgumentParser
import OnAirBroadcast

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "WHIP pre-flight: reachability, CORS, auth, answer, codecs, UDP path (ICE + DTLS), a PLI round trip.")

    @OptionGroup var endpoint: EndpointOptions

    func run() async throws {
        let file = try endpoint.configFile()
        let doctor = BroadcastDoctor(whipURL: endpoint.whipURL(file), token: endpoint.resolvedToken(file))
        let passed = await doctor.run()
        if !passed { throw ExitCode(1) }
    }
}
