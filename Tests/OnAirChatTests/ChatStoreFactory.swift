import Foundation
@testable import OnAirChat
import OnAirPostgres
import OnAirTestSupport
import Synchronization
import Testing

/// The two stores every store-touching chat test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }
}

/// Opens chat stores of one kind on one location (a temporary SQLite file, or a fresh
/// database on the process's throwaway PostgreSQL server): each ``open()`` is another node
/// (or a restart) on the same data. Everything opened is closed when ``with(_:_:)`` returns.
final class ChatStoreFactory: Sendable {
    let kind: StoreKind
    /// The SQLite path or the PostgreSQL URL.
    let location: String
    private let pools = Mutex<[Task<Void, Never>]>([])

    private init(kind: StoreKind, location: String) {
        self.kind = kind
        self.location = location
    }

    static func with<T: Sendable>(_ kind: StoreKind, _ body: (ChatStoreFactory) async throws -> T) async throws -> T {
        let factory: ChatStoreFactory
        var directory: URL?
        switch kind {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chat-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            directory = dir
            factory = ChatStoreFactory(kind: kind, location: dir.appendingPathComponent("chat.sqlite").path)
        case .postgres:
            factory = ChatStoreFactory(kind: kind, location: try await ThrowawayPostgres.database())
        }
        defer {
            for pool in factory.pools.withLock({ $0 }) { pool.cancel() }
            if let directory { try? FileManager.default.removeItem(at: directory) }
        }
        return try await body(factory)
    }

    /// A store on this location (another node, or the same data after a restart).
    func open() async throws -> any ChatStore {
        switch kind {
        case .sqlite:
            return try SQLiteChatStore(path: location)
        case .postgres:
            let database = try openDatabase()
            return try await PostgresChatStore(database: database)
        }
    }

    /// A node: a store, and with PostgreSQL the link to the other nodes (a service the
    /// application runs).
    func openNode() async throws -> (any ChatStore, (any ChatClusterLink)?) {
        switch kind {
        case .sqlite:
            return (try SQLiteChatStore(path: location), nil)
        case .postgres:
            let database = try openDatabase()
            return (try await PostgresChatStore(database: database), PostgresClusterLink(database: database, logger: ChatFixtures.logger))
        }
    }

    /// A running connection pool on the PostgreSQL location, with the tests' deadline
    /// (``ThrowawayPostgres/operationDeadline``).
    func openDatabase() throws -> SharedDatabase {
        let database = try SharedDatabase(url: try PostgresURL(parsing: location), logger: ChatFixtures.logger,
                                          deadline: ThrowawayPostgres.operationDeadline)
        let pool = Task { await database.run() }
        pools.withLock { $0.append(pool) }
        return database
    }
}
