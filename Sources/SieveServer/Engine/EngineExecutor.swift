#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SieveBase

/// A small pool of threads of its own that runs engine work too large to run on the request's
/// task: a query that may read many rows or test geometries with GEOS would otherwise hold one
/// of the few threads of Swift's cooperative pool (one per core), and every other request —
/// and the timers that answer late queries — would wait behind it.
///
/// Work is handed over as closures (``submit(_:)``), first come first served; the pool is also
/// a `TaskExecutor`, so a task can run on it with `withTaskExecutorPreference(_:operation:)`.
/// Threads sleep on a condition variable while the queue is empty and are woken only when a
/// thread sleeps, so a busy pool takes no system call per job.
///
/// The threads are never stopped: the pool lives as long as the process (``shared``).
final class EngineExecutor: TaskExecutor, @unchecked Sendable {
    // `@unchecked Sendable`: the queue is behind `Locked`; `signal` is a pthread mutex and
    // condition used only to sleep and wake the threads (see `Signal`).

    /// A job: a closure, or a task's job when the pool serves as a task executor.
    private enum Job {
        case closure(@Sendable () -> Void)
        case task(UnownedJob)
    }

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        /// Threads asleep, waiting for a job.
        var sleeping = 0

        mutating func pop() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// The pool the server's requests share: two threads per core, at least four, so that a few
    /// long queries do not hold up the others.
    static let shared = EngineExecutor(threads: Swift.max(4, 2 * EngineExecutor.processorCount))

    /// The name of the pool's threads (as `top -H`, `perf` and debuggers show them).
    static let threadName = "sieve-engine"

    /// The number of threads.
    let threadCount: Int
    private let queue = Locked(Queue())
    private let signal = Signal()

    /// A pool of `threads` threads, started at once.
    init(threads: Int) {
        threadCount = Swift.max(1, threads)
        for _ in 0..<threadCount {
            Self.startThread(named: Self.threadName) { [self] in runLoop() }
        }
    }

    /// Runs `work` on one of the pool's threads, after the work handed over before it.
    func submit(_ work: @escaping @Sendable () -> Void) {
        push(.closure(work))
    }

    /// Runs a task's job on the pool (the `TaskExecutor` requirement).
    func enqueue(_ job: consuming ExecutorJob) {
        push(.task(UnownedJob(job)))
    }

    private func push(_ job: Job) {
        let wake = queue.withLock { queue -> Bool in
            queue.jobs.append(job)
            return queue.sleeping > 0
        }
        if wake { signal.wakeOne() }
    }

    /// A thread's life: take the next job, run it; sleep while there is none.
    private func runLoop() {
        while true {
            let job = queue.withLock { queue -> Job? in
                if let job = queue.pop() { return job }
                queue.sleeping += 1
                return nil
            }
            guard let job else {
                // Sleep until a job arrives. A wake-up sent between the check above and the
                // wait is kept by the signal's count, so none is lost.
                signal.wait()
                queue.withLock { $0.sleeping -= 1 }
                continue
            }
            switch job {
            case .closure(let work): work()
            case .task(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    /// The number of processors online (at least 1).
    static var processorCount: Int {
        Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Starts a detached thread named `name` (at most 15 bytes) running `body` (the thread ends
    /// when `body` returns).
    static func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
        guard
            let thread = PlainThread.start({
                nameCurrentThread(name)
                body()
            })
        else { fatalError("pthread_create failed: no thread for \(name)") }
        pthread_detach(thread)
    }
}

/// Names the calling thread (at most 15 bytes), as `top -H`, `perf` and debuggers show it.
func nameCurrentThread(_ name: String) {
    #if canImport(Darwin)
        pthread_setname_np(name)
    #else
        // Glibc's module does not export it (a GNU extension): looked up by name.
        typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(nil, "pthread_setname_np") else { return }
        _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), name)
    #endif
}

/// A counting wake-up signal: ``wakeOne()`` adds a permit, ``wait()`` sleeps until there is one
/// and takes it. It guards no data (the data is behind `Locked`); its pthread mutex exists only
/// because a condition variable needs one, and ThreadSanitizer sees both.
final class Signal: @unchecked Sendable {
    // `@unchecked Sendable`: `permits` is touched only under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var permits = 0

    init() {
        mutex = UnsafeMutablePointer.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)
            // Timed waits on the monotonic clock: a change of the wall clock moves no deadline.
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Adds a permit and wakes one sleeper.
    func wakeOne() {
        pthread_mutex_lock(mutex)
        permits += 1
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until a permit is there, and takes it.
    func wait() {
        pthread_mutex_lock(mutex)
        while permits == 0 { pthread_cond_wait(condition, mutex) }
        permits -= 1
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until a permit is there (and takes it, answering `true`) or until `seconds` have
    /// passed (answering `false`).
    func wait(seconds: Double) -> Bool {
        var now = timespec()
        #if canImport(Darwin)
            clock_gettime(CLOCK_REALTIME, &now)
        #else
            clock_gettime(CLOCK_MONOTONIC, &now)
        #endif
        let whole = seconds.rounded(.down)
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(whole), tv_nsec: now.tv_nsec + Int((seconds - whole) * 1e9))
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while permits == 0 {
            if pthread_cond_timedwait(condition, mutex, &deadline) != 0, permits == 0 { return false }
        }
        permits -= 1
        return true
    }
}
