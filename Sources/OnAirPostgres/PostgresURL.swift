import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL connection URL as libpq reads it:
/// `postgres://user:password@host:port/database?sslmode=...&host=/socket/dir`.
/// A `host` that is a directory (in the query or percent-encoded) means the Unix socket
/// `<dir>/.s.PGSQL.<port>`. Missing parts take libpq's defaults: port 5432, the OS user,
/// a database named like the user, `PGPASSWORD` for the password, `sslmode=prefer`.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    /// `sslrootcert`: CA file for `verify-ca` / `verify-full`.
    public var rootCertificate: String?

    /// The Unix socket path when `host` is a directory.
    public var socketPath: String? { host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil }

    /// The URL with the password hidden, for logs and errors.
    public var description: String {
        let credentials = password == nil ? user : "\(user):***"
        let place = socketPath ?? "\(host):\(port)"
        return "postgres://\(credentials)@\(place)/\(database)"
    }

    /// Whether `text` is meant as a PostgreSQL URL (rather than a file path).
    public static func looksLikeURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresURLError) {
        guard Self.looksLikeURL(text), let components = URLComponents(string: text) else {
            throw PostgresURLError("not a PostgreSQL URL (expected postgres://user:password@host:port/database)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard let value = item.value else { throw PostgresURLError("query parameter \(item.name) has no value") }
            query[item.name] = value
        }
        for name in query.keys where !Self.knownParameters.contains(name) {
            throw PostgresURLError("unknown query parameter \(name) (known: \(Self.knownParameters.sorted().joined(separator: ", ")))")
        }
        let portText = query["port"] ?? components.port.map(String.init) ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else { throw PostgresURLError("port \(portText) is not 1-65535") }
        self.port = port
        host = query["host"] ?? components.percentEncodedHost.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
            ?? "localhost"
        user = query["user"] ?? components.user.flatMap { $0.isEmpty ? nil : $0 } ?? Self.operatingSystemUser(environment)
        password = query["password"] ?? components.password ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = query["dbname"] ?? (path.isEmpty ? user : path)
        guard !database.contains("/") else { throw PostgresURLError("database name \(database) contains a /") }
        let modeText = query["sslmode"] ?? "prefer"
        guard let mode = SSLMode(rawValue: modeText) else {
            throw PostgresURLError("sslmode=\(modeText) is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        sslMode = mode
        rootCertificate = query["sslrootcert"]
    }

    /// Settings for the connection pool.
    public func clientConfiguration() throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath {
            configuration = .init(unixSocketPath: socketPath, username: user, password: password, database: database)
        } else {
            configuration = .init(host: host, port: port, username: user, password: password, database: database,
                                  tls: try clientTLS())
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// Settings for one dedicated connection (LISTEN).
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketPath {
            configuration = .init(unixSocketPath: socketPath, username: user, password: password, database: database)
        } else {
            configuration = .init(host: host, port: port, username: user, password: password, database: database,
                                  tls: try connectionTLS())
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    static let knownParameters: Set<String> = ["sslmode", "sslrootcert", "host", "port", "user", "password", "dbname"]

    /// libpq's modes: `require` encrypts without checking the certificate, `verify-ca` checks
    /// the chain, `verify-full` also the host name.
    private func tlsSettings() throws -> TLSConfiguration? {
        guard sslMode != .disable else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable, .allow, .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if let rootCertificate { tls.trustRoots = .file(rootCertificate) }
        return tls
    }

    private func clientTLS() throws -> PostgresClient.Configuration.TLS {
        guard let tls = try tlsSettings() else { return .disable }
        return sslMode == .allow || sslMode == .prefer ? .prefer(tls) : .require(tls)
    }

    private func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        guard let tls = try tlsSettings() else { return .disable }
        let context = try NIOSSLContext(configuration: tls)
        return sslMode == .allow || sslMode == .prefer ? .prefer(context) : .require(context)
    }

    private static func operatingSystemUser(_ environment: [String: String]) -> String {
        environment["PGUSER"] ?? environment["USER"] ?? ProcessInfo.processInfo.userName
    }
}

/// A database URL that cannot be used, with what to fix.
public struct PostgresURLError: Error, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
