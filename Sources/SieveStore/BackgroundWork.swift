import Dispatch

/// A computation started on another thread, whose result one thread waits for later: the
/// writer lays out the R-tree while it inserts the rows.
final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    // `value` is written once, by the work, before `finished` is signalled; read only after
    // waiting for it (the semaphore orders the two).
    private let finished = DispatchSemaphore(value: 0)
    private var value: Value?
    private var waited = false

    /// Starts `body` on a global queue.
    init(_ body: @escaping @Sendable () -> Value) {
        DispatchQueue.global(qos: .userInitiated).async {
            self.value = body()
            self.finished.signal()
        }
    }

    /// The result, once the work is done (blocks until then). Call from one thread only.
    func wait() -> Value {
        if !waited {
            finished.wait()
            waited = true
        }
        guard let value else { preconditionFailure("background work finished without a value") }
        return value
    }
}
