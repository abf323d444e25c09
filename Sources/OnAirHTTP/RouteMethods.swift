import HTTPTypes
import Hummingbird

/// The methods each path of a server takes, read from its router's routes once the last is
/// added: the `Allow` field of a 405 answer (RFC 9110 §15.5.6) and of an OPTIONS answer
/// (§9.3.7, §10.2.1). `HEAD` goes with `GET` (the servers' routers generate it, §9.3.2) and
/// `OPTIONS` with every path (``AllowedMethodsMiddleware`` answers it).
///
/// A request path resolves as Hummingbird's router resolves it: split at `/` with empty
/// segments left out, compared as sent (not percent-decoded), and where two routes match, the
/// one with a literal segment at the first place they differ wins over a parameter. Literal
/// segments and whole-segment parameters (`/whip/:room`) are understood: all the servers use.
public struct RouteMethods: Sendable {
    /// A route's path and the methods it takes, as `Allow` lists them.
    public struct Route: Sendable {
        public let path: RouterPath
        public fileprivate(set) var methods: [HTTPRequest.Method]

        /// The `Allow` field value (RFC 9110 §10.2.1).
        public var allow: String { methods.map(\.rawValue).joined(separator: ", ") }
    }

    public private(set) var routes: [Route] = []

    /// The order `Allow` lists methods in; others follow, sorted.
    static let order: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    public init(_ routes: [(path: RouterPath, method: HTTPRequest.Method)]) {
        for (path, method) in routes {
            let implied: [HTTPRequest.Method] = method == .get ? [.get, .head, .options] : [method, .options]
            if let index = self.routes.firstIndex(where: { $0.path == path }) {
                self.routes[index].methods.append(contentsOf: implied.filter { !self.routes[index].methods.contains($0) })
            } else {
                self.routes.append(Route(path: path, methods: implied))
            }
        }
        for index in self.routes.indices {
            self.routes[index].methods.sort { Self.rank($0) < Self.rank($1) }
        }
    }

    /// The routes of `router` (call it after the last one is added), and `alsoServed`: paths
    /// answered ahead of the router, in the HTTP pipeline.
    public init<Context>(_ router: Router<Context>, alsoServed: [(path: RouterPath, method: HTTPRequest.Method)] = []) {
        self.init(router.routes.map { ($0.path, $0.method) } + alsoServed)
    }

    /// The route `path` (without query) resolves to; nil when no route has that path.
    public func route(of path: String) -> Route? {
        let segments = path.split(separator: "/")
        var best: (route: Route, literal: [Bool])?
        for route in routes where route.path.count == segments.count {
            guard zip(route.path, segments).allSatisfy({ $0 ~= $1 }) else { continue }
            let literal = zip(route.path, segments).map { $0 == $1 }
            if let current = best, !Self.moreLiteral(literal, than: current.literal) { continue }
            best = (route, literal)
        }
        return best?.route
    }

    /// At the first segment where they differ, `a` has the literal.
    private static func moreLiteral(_ a: [Bool], than b: [Bool]) -> Bool {
        zip(a, b).first { $0 != $1 }?.0 ?? false
    }

    private static func rank(_ method: HTTPRequest.Method) -> (Int, String) {
        (order.firstIndex(of: method) ?? order.count, method.rawValue)
    }
}
