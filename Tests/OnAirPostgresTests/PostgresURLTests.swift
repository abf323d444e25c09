import OnAirPostgres
import Testing

@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("libpq's parts and defaults")
    func parts() throws {
        let url = try PostgresURL(parsing: "postgres://ada:s%40cret@db.example:6543/chat?sslmode=require", environment: [:])
        #expect(url.host == "db.example" && url.port == 6543 && url.user == "ada" && url.password == "s@cret")
        #expect(url.database == "chat" && url.sslMode == .require && url.socketPath == nil)
        #expect(url.description == "postgres://ada:***@db.example:6543/chat")

        let bare = try PostgresURL(parsing: "postgresql://localhost", environment: ["USER": "bob", "PGPASSWORD": "pw"])
        #expect(bare.port == 5432 && bare.user == "bob" && bare.database == "bob" && bare.password == "pw" && bare.sslMode == .prefer)

        let socket = try PostgresURL(parsing: "postgres://onair@/chat?host=/tmp/pg&port=5433", environment: [:])
        #expect(socket.socketPath == "/tmp/pg/.s.PGSQL.5433")
        #expect(socket.description == "postgres://onair@/tmp/pg/.s.PGSQL.5433/chat")
    }

    @Test("a URL that cannot work says what is wrong")
    func refusals() {
        let cases: [(String, String)] = [
            ("postgres://h:99999/db", "port 99999"),
            ("postgres://h/db?sslmode=sometimes", "sslmode=sometimes is not one of"),
            ("postgres://h/db?sslmod=disable", "unknown query parameter sslmod"),
            ("mysql://h/db", "not a PostgreSQL URL"),
        ]
        for (text, expected) in cases {
            #expect(throws: PostgresURLError.self) { try PostgresURL(parsing: text, environment: [:]) }
            do {
                _ = try PostgresURL(parsing: text, environment: [:])
            } catch {
                #expect(error.description.contains(expected), "\(text): \(error)")
            }
        }
    }

    @Test("a file path is SQLite, a postgres URL is PostgreSQL")
    func location() throws {
        #expect(try DatabaseLocation(parsing: "chat.sqlite") == .sqlite(path: "chat.sqlite"))
        guard case .postgres(let url) = try DatabaseLocation(parsing: "postgres://a:b@h/d") else { Issue.record("not postgres"); return }
        #expect(url.database == "d")
        #expect(throws: PostgresURLError.self) { try DatabaseLocation(parsing: "") }
    }
}
