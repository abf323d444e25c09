import OnAirForwarding

/// A room in `GET /api/streams` when relays share a database: this relay's streams with all
/// their figures plus `relay` (who serves them), and the rooms other relays serve as
/// `{"room", "live": true, "relay"}`, so that a load balancer or an edge relay finds a room's origin.
struct ListedStream: Encodable {
    var snapshot: StreamSnapshot?
    var room: String
    var relay: String

    enum CodingKeys: String, CodingKey { case room, live, relay }

    func encode(to encoder: any Encoder) throws {
        if let snapshot { try snapshot.encode(to: encoder) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        if snapshot == nil {
            try container.encode(room, forKey: .room)
            try container.encode(true, forKey: .live)
        }
        try container.encode(relay, forKey: .relay)
    }
}
