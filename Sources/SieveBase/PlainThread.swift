#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// POSIX threads started from Swift: the one place that hands a closure to `pthread_create`,
/// for the server's engine threads and the GeoPackage writer's background work.
package enum PlainThread {
    /// Starts a thread running `body` and returns its handle, to join; `nil` when the system
    /// gives no thread (the caller decides what to do then: `body` has not run).
    package static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
            var handle: pthread_t?
        #else
            var handle = pthread_t()
        #endif
        let started = pthread_create(
            &handle, nil,
            { context in
                #if canImport(Darwin)
                    Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                #else
                    guard let context else { return nil }
                    Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                #endif
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        #if canImport(Darwin)
            return handle
        #else
            return .some(handle)
        #endif
    }

    /// What a thread runs, passed to it through `pthread_create`.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
