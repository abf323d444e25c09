import Foundation
import PostgresNIO

/// The room directory on PostgreSQL: one publisher per room across every relay on the
/// database, each room under a lease its relay renews while it lives. When a relay dies its
/// leases run out and any other relay ends its streams (`relay_lost`), so the chat closes
/// those rooms without waiting for the dead relay to come back.
extension PostgresWebhookStore {
    /// A room's lease: a dead relay's rooms are ended within `roomLease` + one renewal period.
    public static let roomLease: Duration = .seconds(6)
    /// The longest a WHIP POST waits for the directory (the database away: publishing goes on
    /// without the check after this).
    static let claimDeadline: Duration = .seconds(1)
    /// How often the lease loop renews, sweeps and tidies.
    public static let roomRenewal: Duration = .seconds(2)

    /// A room another relay serves, as `GET /api/streams` shows it.
    public struct DirectoryEntry: Sendable, Equatable {
        public var room: String
        /// The serving relay's id: its public URL.
        public var relay: String
    }

    /// Takes `room` for a publisher on this relay: nil when it is this relay's now, or the
    /// relay that holds it (its lease still running).
    public func claimRoom(_ room: String) async throws -> String? {
        let relayID = self.relayID
        let seconds = Double(Self.roomLease.components.seconds)
        let logger = self.logger
        return try await database.withConnection(deadline: Self.claimDeadline) { connection in
            let claimed = try await connection.query("""
                INSERT INTO relay_room (room, relay_id, claimed_at, lease_until)
                VALUES (\(room), \(relayID), now(), now() + make_interval(secs => \(seconds)))
                ON CONFLICT (room) DO UPDATE SET relay_id = EXCLUDED.relay_id, claimed_at = EXCLUDED.claimed_at,
                    lease_until = EXCLUDED.lease_until
                WHERE relay_room.relay_id = EXCLUDED.relay_id OR relay_room.lease_until < now()
                RETURNING relay_id
                """, logger: logger)
            for try await _ in claimed { return nil }
            let holder = try await connection.query("SELECT relay_id FROM relay_room WHERE room = \(room)", logger: logger)
            for try await relay in holder.decode(String.self) { return relay }
            return nil  // released meanwhile: the next try takes it
        }
    }

    /// Renews this relay's rooms and drops the ones whose stream is not live here any more
    /// (ended, or never started within 15 s of the claim).
    public func renewRooms() async throws {
        let relayID = self.relayID
        let seconds = Double(Self.roomLease.components.seconds)
        let logger = self.logger
        try await database.transaction { connection in
            try await connection.query("""
                DELETE FROM relay_room r WHERE r.relay_id = \(relayID) AND r.claimed_at < now() - interval '15 seconds'
                AND NOT EXISTS (SELECT 1 FROM relay_stream s WHERE s.room = r.room AND s.live AND s.relay_id = \(relayID))
                """, logger: logger)
            try await connection.query("""
                UPDATE relay_room SET lease_until = now() + make_interval(secs => \(seconds)) WHERE relay_id = \(relayID)
                """, logger: logger)
        }
    }

    /// Frees `room` at once when this relay's stream there ended at `endedAt` (a new publisher
    /// may come to any relay); a claim made after that end (a new publisher here) stays.
    public func releaseRoom(_ room: String, endedAt: Double) async throws {
        let relayID = self.relayID
        let logger = self.logger
        try await database.withConnection { connection in
            try await connection.query("""
                DELETE FROM relay_room WHERE room = \(room) AND relay_id = \(relayID) AND claimed_at <= to_timestamp(\(endedAt))
                """, logger: logger)
        }
    }

    /// Ends (`relay_lost`) the live streams whose relay's room lease ran out; each is ended by
    /// exactly one relay (the directory row is deleted in the same statement).
    public func endLostStreams(now: Double) async throws -> [RecordedEvent] {
        let firstDelay = schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0
        let logger = self.logger
        return try await database.transaction { connection in
            try await Self.endLive(connection, logger, now: now, reason: .relayLost, firstDelay: firstDelay, of: .leaseExpired)
        }
    }

    /// Every room with a live lease, and its relay.
    public func directory() async throws -> [DirectoryEntry] {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("SELECT room, relay_id FROM relay_room WHERE lease_until >= now() ORDER BY room",
                                                  logger: logger)
            var entries: [DirectoryEntry] = []
            for try await (room, relay) in rows.decode((String, String).self) { entries.append(.init(room: room, relay: relay)) }
            return entries
        }
    }
}
