import ArgumentParser
import OnAirBroadcast

struct Stop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "End the broadcast of a room started on this machine (its WHIP session is DELETEd).")

    @OptionGroup var endpoint: EndpointOptions

    func run() async throws {
        let file = try endpoint.configFile()
        let code = await BroadcastStopper.stop(room: endpoint.room, stateDirectory: BroadcastSettings.defaultStateDirectory,
                                               token: endpoint.resolvedToken(file))
        if code != 0 { throw ExitCode(code) }
    }
}
