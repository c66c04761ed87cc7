import HTTPTypes
import Hummingbird
import SieveBase

/// The methods each route template takes, read from the router once its routes are added: what
/// tells a path no route has (404) from a method the path's route does not take (405, with
/// `Allow` listing those it does, as RFC 9110 §15.5.6 asks).
struct RouteMethods: Sendable {
    /// A route: its path segments, `nil` for a capture (`{name}`, `:name`) or a wildcard,
    /// and its methods.
    private var routes: [(segments: [Substring?], methods: Set<HTTPRequest.Method>)] = []

    /// No routes (every path unknown).
    init() {}

    /// The routes of `router`.
    init(_ router: Router<BasicRequestContext>) {
        var byPath: [String: Set<HTTPRequest.Method>] = [:]
        var order: [String] = []
        for route in router.routes {
            let path = route.path.description
            if byPath[path] == nil { order.append(path) }
            byPath[path, default: []].insert(route.method)
            // Every GET route answers HEAD too (the router makes those when it is built).
            if route.method == .get { byPath[path, default: []].insert(.head) }
        }
        routes = order.map { path in
            let segments = path.split(separator: "/").map { segment -> Substring? in
                segment.hasPrefix("{") || segment.hasPrefix(":") || segment.hasPrefix("*") ? nil : segment
            }
            return (segments, byPath[path] ?? [])
        }
    }

    /// The methods the routes matching `path` take, sorted by name; empty when no route
    /// matches it.
    func allowed(_ path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        var methods: Set<HTTPRequest.Method> = []
        for route in routes where route.segments.count == segments.count {
            if zip(route.segments, segments).allSatisfy({ pattern, segment in pattern == nil || pattern == segment }) {
                methods.formUnion(route.methods)
            }
        }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }
}
