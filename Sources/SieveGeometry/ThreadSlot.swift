#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One context object per thread, lent to a closure and never shared: the mechanism behind
/// `GEOSContext.withCurrent` and `ProjectionContext.withCurrent`.
///
/// ``borrow(make:_:)`` takes the calling thread's context out of its slot (making one the first
/// time), runs the closure with it, and puts it back only when nothing else holds it and no
/// nested call has put a context back meanwhile; a context the closure kept is let go by the
/// thread, which makes a new one next time. A thread's context is released when it ends.
package struct ThreadSlot<Context: AnyObject>: Sendable {
    private let key: pthread_key_t

    /// A new slot (one per context type, kept in a global).
    package init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        precondition(status == 0, "pthread_key_create failed")
        self.key = key
    }

    /// Runs `body` with the calling thread's context, made by `make` when the thread has none.
    package func borrow<Result, Failure: Error>(
        make: () -> Context, _ body: (Context) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var context: Context
        if let existing = pthread_getspecific(key) {
            // Take the context (and the reference the slot held) out of the slot.
            context = Unmanaged<Context>.fromOpaque(existing).takeRetainedValue()
            pthread_setspecific(key, nil)
        } else {
            context = make()
        }
        defer {
            if isKnownUniquelyReferenced(&context), pthread_getspecific(key) == nil {
                pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
            }
        }
        return try body(context)
    }

    /// Whether `context` is the one in the calling thread's slot (for tests).
    package func holds(_ context: Context) -> Bool {
        guard let existing = pthread_getspecific(key) else { return false }
        return Unmanaged<Context>.fromOpaque(existing).takeUnretainedValue() === context
    }
}
