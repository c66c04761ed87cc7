#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SieveFeatures
import SieveBase

/// A computation started on a thread of its own, whose result one thread waits for later: the
/// writer lays out the R-tree while it inserts the rows.
///
/// A plain POSIX thread, joined by ``wait()``: the join is the wait (no semaphore, no queue),
/// and the value passes through `Locked`, which ThreadSanitizer sees.
final class BackgroundWork<Value: Sendable>: Sendable {
    /// The thread's value, set once by the work before it ends.
    private let value = Locked<Value?>(nil)
    /// The thread, until it is joined.
    private let thread = Locked<pthread_t?>(nil)

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Value) {
        let result = value
        let work: @Sendable () -> Void = { result.withLock { $0 = body() } }
        guard let handle = PlainThread.start(work) else {
            // No thread to be had: do the work here, before the rows (slower, same result).
            work()
            return
        }
        thread.withLock { $0 = handle }
    }

    deinit {
        // Never waited for (not the writer's way): let the thread end on its own.
        if let handle = thread.withLock({ $0 }) { pthread_detach(handle) }
    }

    /// The result, once the work is done (blocks until then). Call from one thread only.
    func wait() -> Value {
        if let handle = thread.withLock({ state -> pthread_t? in
            defer { state = nil }
            return state
        }) {
            pthread_join(handle, nil)
        }
        guard let finished = value.withLock({ $0 }) else { preconditionFailure("background work finished without a value") }
        return finished
    }
}
