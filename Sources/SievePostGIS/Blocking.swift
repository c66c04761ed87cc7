import Dispatch

/// Runs async work from synchronous code — a command-line tool, a benchmark — and waits for it.
///
/// `body` runs on the cooperative pool; the calling thread blocks on a semaphore until it ends.
/// Never call this from a task or an actor (the pool could wait on itself).
public func waitForAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            box.result = .success(try await body())
        } catch {
            box.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    guard let result = box.result else { throw PostGISError("the asynchronous call ended without an answer") }
    return try result.get()
}

/// The result of a call, written by the task and read after the semaphore: the semaphore orders
/// the two accesses.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
