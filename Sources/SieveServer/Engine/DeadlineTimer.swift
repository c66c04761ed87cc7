#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SieveBase

/// Runs actions at their deadlines, on one thread of its own: the query timeouts of the
/// server, which must fire while the query's work still runs (and whatever the cooperative
/// pool is busy with).
///
/// Scheduling is a heap insert under a lock; the thread is woken only when the new deadline is
/// earlier than the one it sleeps until (with one timeout for every query, only when nothing
/// was scheduled), so a loaded server takes no system call per timer. A cancelled action is
/// released at once; its heap entry (16 bytes) is dropped when it comes due, or earlier by a
/// compaction when cancelled entries are most of the heap. Actions fire at most
/// ``resolution`` seconds late: the thread wakes at most once per resolution.
final class DeadlineTimer: Sendable {
    /// A scheduled action, to cancel it.
    struct Ticket: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private struct State {
        /// A min-heap of deadlines (nanoseconds of the monotonic clock).
        var heap: [Entry] = []
        /// The actions not yet fired nor cancelled, by ticket.
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
        /// When the thread will look at the heap next; `UInt64.max` while it sleeps until woken.
        var plannedWake = UInt64.max

        mutating func push(_ entry: Entry) {
            heap.append(entry)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].deadline < heap[parent].deadline else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        mutating func popFirst() -> Entry? {
            guard let first = heap.first else { return nil }
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(from: 0)
            }
            return first
        }

        mutating func siftDown(from start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
                if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
                guard smallest != parent else { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }

        /// Drops the entries of cancelled actions and restores the heap order.
        mutating func compact() {
            heap.removeAll { actions[$0.id] == nil }
            var index = heap.count / 2
            while index > 0 {
                index -= 1
                siftDown(from: index)
            }
        }
    }

    /// The timer the server's queries share, firing at most 10 ms late.
    static let shared = DeadlineTimer(resolution: 0.01)

    /// How late, at most, an action fires (seconds).
    let resolution: Double
    private let state = Locked(State())
    private let signal = Signal()

    /// A timer whose thread starts at once and runs for the life of the process.
    init(resolution: Double) {
        self.resolution = resolution
        EngineExecutor.startThread(named: "sieve-timer") { [self] in run() }
    }

    /// Runs `action` (on the timer's thread) once `seconds` have passed, unless cancelled first.
    /// The action must be quick: it holds up the actions due after it.
    @discardableResult
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Ticket {
        let deadline = Self.now() &+ UInt64(Swift.max(0, Swift.min(seconds, 1e9)) * 1e9)
        let slack = UInt64(resolution * 1e9)
        let (ticket, wake) = state.withLock { state -> (Ticket, Bool) in
            let id = state.nextID
            state.nextID &+= 1
            state.actions[id] = action
            state.push(Entry(deadline: deadline, id: id))
            let wake = deadline &+ slack < state.plannedWake
            if wake { state.plannedWake = deadline }
            return (Ticket(id: id), wake)
        }
        if wake { signal.wakeOne() }
        return ticket
    }

    /// Cancels the action of `ticket` if it has not fired yet, releasing it at once.
    func cancel(_ ticket: Ticket) {
        state.withLock { state in
            guard state.actions.removeValue(forKey: ticket.id) != nil else { return }
            if state.heap.count >= 4096, state.actions.count * 4 < state.heap.count { state.compact() }
        }
    }

    /// The thread's life: fire what is due, then sleep until the next deadline (at least one
    /// resolution away) or until woken by an earlier one.
    private func run() {
        let slack = UInt64(resolution * 1e9)
        while true {
            let now = Self.now()
            var due: [@Sendable () -> Void] = []
            let sleep = state.withLock { state -> UInt64? in
                while let first = state.heap.first, first.deadline <= now {
                    _ = state.popFirst()
                    if let action = state.actions.removeValue(forKey: first.id) { due.append(action) }
                }
                guard let next = state.heap.first?.deadline else {
                    state.plannedWake = UInt64.max
                    return nil
                }
                let wake = Swift.max(next, now &+ slack)
                state.plannedWake = wake
                return wake - now
            }
            for action in due { action() }
            if let sleep {
                _ = signal.wait(seconds: Double(sleep) / 1e9)
            } else {
                signal.wait()
            }
        }
    }

    /// Nanoseconds of the monotonic clock.
    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
