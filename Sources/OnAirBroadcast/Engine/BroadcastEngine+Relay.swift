import OnAirSTUN

extension BroadcastEngine {
    /// A TURN allocation for this session's relay candidate (RFC 8656), from the first usable
    /// TURN server: the configured ones, else those the WHIP endpoint names in the `Link`
    /// headers of its OPTIONS answer (RFC 9725 §4.6). nil when there is none or none allocates:
    /// host and ICE-TCP candidates still work. With relay-only that is an error instead.
    func allocateRelay() async throws(BroadcastError) -> TURNRelay? {
        var servers = settings.iceServers
        if servers.isEmpty { servers = await whip.iceServers(url: settings.whipURL, token: settings.token) }
        let usable = servers.filter { $0.turnURI != nil }
        guard !usable.isEmpty else {
            if settings.relayOnly {
                throw BroadcastError(.usage, "relay-only needs a TURN server: the relay names none (configure its turn: section) "
                                     + "and none was given (--ice-server, --ice-username, --ice-credential)")
            }
            return nil
        }
        var problems: [String] = []
        for server in usable {
            do {
                let relay = try TURNRelay(server, caFile: settings.iceCAFile)
                try await relay.allocate(timeout: settings.relayOnly ? .seconds(10) : .seconds(3),
                                         stopRequested: { stop.isRequested })
                if let relayed = relay.relayedAddress {
                    Console.info("broadcast: TURN allocation at \(relay.uri): relay candidate \(relayed)"
                                 + (settings.relayOnly ? " (relay only)" : ""))
                }
                return relay
            } catch {
                problems.append(error.description)
            }
        }
        let reason = problems.joined(separator: "; ")
        if settings.relayOnly { throw BroadcastError(.relayUnreachable, reason) }
        Console.error("broadcast: warning: \(reason); going on without a relay candidate")
        return nil
    }
}
