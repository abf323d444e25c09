import Logging
import PostgresNIO

/// One schema change: applied once per database, in version order, in one transaction.
public struct SchemaMigration: Sendable {
    public let version: Int
    public let name: String
    public let statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// Versioned migrations of one component's tables (`scope`: "chat", "relay"), recorded in
/// `onair_schema_migration`. Nodes starting at once take turns on a session advisory lock
/// (released by the server if the node dies), so each migration runs exactly once. Append new
/// migrations; never edit a shipped one.
public struct SchemaMigrator: Sendable {
    public let scope: String
    public let migrations: [SchemaMigration]

    /// The advisory lock every OnAir migrator takes (any constant both sides agree on).
    static let lockKey: Int64 = 0x4F6E_4169_724D_6967  // "OnAirMig"

    public init(scope: String, migrations: [SchemaMigration]) {
        precondition(zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version }, "versions must ascend")
        self.scope = scope
        self.migrations = migrations
    }

    /// Applies what is missing; returns the versions applied now.
    @discardableResult
    public func migrate(_ database: SharedDatabase) async throws -> [Int] {
        let scope = self.scope
        let migrations = self.migrations
        let logger = database.logger
        return try await database.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger)
            do {
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS onair_schema_migration (
                        scope text NOT NULL, version integer NOT NULL, name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (scope, version))
                    """, logger: logger)
                var applied = Set<Int>()
                for try await version in try await connection.query(
                    "SELECT version FROM onair_schema_migration WHERE scope = \(scope)", logger: logger).decode(Int.self) {
                    applied.insert(version)
                }
                var appliedNow: [Int] = []
                for migration in migrations where !applied.contains(migration.version) {
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in migration.statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query("""
                            INSERT INTO onair_schema_migration (scope, version, name)
                            VALUES (\(scope), \(migration.version), \(migration.name))
                            """, logger: logger)
                    }
                    logger.info("database: applied \(scope) migration \(migration.version) (\(migration.name))")
                    appliedNow.append(migration.version)
                }
                try await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                return appliedNow
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                throw error
            }
        }
    }
}
