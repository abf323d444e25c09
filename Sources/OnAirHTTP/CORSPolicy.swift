import HTTPTypes

/// Who may call an HTTP API from a web page of another origin, and what such a page may send
/// and read (Fetch standard, "CORS protocol"). One policy per server, shared by its
/// middleware (``CORSPolicyMiddleware``) and any handler that writes its own responses.
public struct CORSPolicy: Sendable {
    /// Origins allowed to call (`"*"`: any).
    public let allowedOrigins: [String]
    /// `Access-Control-Allow-Headers` of a preflight.
    public let requestHeaders: String
    /// `Access-Control-Expose-Headers` of every answer: the response headers a script may read
    /// (nil: only the CORS-safelisted ones).
    public let exposedHeaders: String?
    /// How long a browser may cache a preflight, seconds.
    public let maxAge: Int

    public init(allowedOrigins: [String], requestHeaders: [HTTPField.Name],
                exposedHeaders: [String]? = nil, maxAge: Int = 3_600) {
        self.allowedOrigins = allowedOrigins
        self.requestHeaders = requestHeaders.map(\.rawName).joined(separator: ", ")
        self.exposedHeaders = exposedHeaders?.joined(separator: ", ")
        self.maxAge = maxAge
    }

    /// Whether a page of `origin` may call at all.
    public func allows(_ origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains(origin)
    }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, nil for none.
    public func allowOrigin(for origin: String?) -> String? {
        guard let origin, origin != "null", allows(origin) else { return nil }
        return allowedOrigins.contains("*") ? "*" : origin
    }

    /// The CORS headers of an answer to a request from `origin` (none when it is not allowed).
    /// An answer that depends on the origin says so (`Vary: Origin`), for caches.
    public func responseHeaders(origin: String?) -> HTTPFields {
        guard let allowed = allowOrigin(for: origin) else { return [:] }
        var headers: HTTPFields = [.accessControlAllowOrigin: allowed]
        if let exposedHeaders { headers[.accessControlExposeHeaders] = exposedHeaders }
        if allowed != "*" { headers[.vary] = "Origin" }
        return headers
    }

    /// The CORS headers of a preflight answer for `origin`, allowing `methods`: the `Allow` of
    /// the path asked about (what it takes, not what the server has elsewhere).
    public func preflightHeaders(origin: String?, methods: String) -> HTTPFields {
        var headers = responseHeaders(origin: origin)
        guard !headers.isEmpty else { return headers }
        headers[.accessControlAllowMethods] = methods
        headers[.accessControlAllowHeaders] = requestHeaders
        headers[.accessControlMaxAge] = String(maxAge)
        return headers
    }
}
