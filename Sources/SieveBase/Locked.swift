#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a POSIX mutex: the one lock type of GeoSieve.
///
/// Used instead of Synchronization's `Mutex`, whose Linux implementation locks through futex
/// calls in a library ThreadSanitizer does not instrument: under `--sanitize=thread` it cannot
/// see that `Mutex` orders the accesses it guards, and reports races that are not there. The
/// `pthread_mutex` calls here are ones it intercepts.
///
/// `@unchecked Sendable`: the value is only touched inside ``withLock(_:)``, under the mutex.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock guarding `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the mutex.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
