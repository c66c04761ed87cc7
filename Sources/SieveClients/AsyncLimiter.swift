// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
/// At most `limit` holders at once; others wait, first come first served.
actor AsyncLimiter {
    private let limit: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    /// Waits for a place.
    /// - Throws: `CancellationError` when the task was cancelled before it got one (a place it
    ///   got meanwhile is given back).
    func acquire() async throws {
        if holders < limit {
            holders += 1
        } else {
            // The place is handed over by `release()`, which does not decrement.
            await withCheckedContinuation { waiting.append($0) }
        }
        if Task.isCancelled {
            release()
            throw CancellationError()
        }
    }

    /// Gives a place back, to the longest waiter if any.
    func release() {
        if waiting.isEmpty {
            holders -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
#endif
