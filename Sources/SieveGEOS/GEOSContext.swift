#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CGEOS
import SieveGeometry

/// A GEOS context handle (`GEOSContextHandle_t`) and the last error GEOS reported on it.
///
/// GEOS keeps per-handle state (its message buffer), so a handle must never be used by two
/// threads at once; the GEOS documentation asks for one handle per thread. `GEOSContext` is
/// therefore **not** `Sendable`: the compiler keeps each context, and every ``GEOSGeometry`` and
/// ``PreparedGeometry`` made with it, inside one isolation region.
///
/// Create one per task or worker and reuse it for every call (creating a handle per call is
/// measurably slower), or borrow the calling thread's context with ``withCurrent(_:)``.
///
/// The error handler GEOS calls only stores the message here; the Swift call that received the
/// failure sentinel reads and clears it and throws a ``GEOSError``.
public final class GEOSContext {
    /// The GEOS handle. Valid for the lifetime of this object.
    let handle: OpaquePointer
    private let messages: MessageBox

    /// Stores the most recent message of the GEOS error handler.
    final class MessageBox {
        var lastError: String?
    }

    /// Creates a GEOS context (`GEOS_init_r`) with GeoSieve's error handler installed.
    /// - Throws: ``GEOSError/Kind/initialization`` if GEOS returns no handle.
    public init() throws(GEOSError) {
        guard let handle = GEOS_init_r() else {
            throw GEOSError(.initialization, "GEOS_init_r returned no context handle", function: "GEOS_init_r")
        }
        self.handle = handle
        self.messages = MessageBox()
        let userData = Unmanaged.passUnretained(messages).toOpaque()
        _ = GEOSContext_setErrorMessageHandler_r(handle, geosieveErrorHandler, userData)
        _ = GEOSContext_setNoticeMessageHandler_r(handle, nil, nil)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// Builds the error for a failed call of `function`, clearing the stored message.
    func failure(_ function: String) -> GEOSError {
        let message = messages.lastError ?? "GEOS reported a failure without a message"
        messages.lastError = nil
        return GEOSError(.geosException, message, function: function)
    }

    /// Translates a GEOS predicate result (1 true, 0 false, 2 exception).
    @inline(__always)
    func predicateResult(_ value: CChar, _ function: StaticString) throws(GEOSError) -> Bool {
        // GEOS predicates return 2 on exception, 1 on true, 0 on false.
        switch value {
        case 1: return true
        case 0: return false
        default: throw failure("\(function)")
        }
    }

    /// Runs `body` with the context that belongs to the calling thread, creating it on first use.
    ///
    /// The context lives as long as the thread and is finished when the thread exits. `body` is
    /// synchronous, so it cannot suspend and resume on another thread while it holds the
    /// context.
    ///
    /// Neither the context nor anything made with it can leave `body` for another thread:
    ///
    /// - **Returning it does not compile.** `Result` must be `Sendable`, and ``GEOSContext``,
    ///   ``GEOSGeometry`` and ``PreparedGeometry`` are explicitly not:
    ///
    ///   ```swift
    ///   let context = GEOSContext.withCurrent { context in context }
    ///   // error: conformance of 'GEOSContext' to 'Sendable' is unavailable
    ///   let point = try GEOSContext.withCurrent { context in
    ///       try GEOSGeometry(.point(Point(x: 1, y: 1)), context: context)
    ///   }
    ///   // error: conformance of 'GEOSGeometry' to 'Sendable' is unavailable
    ///   ```
    ///
    ///   Return what was computed instead: booleans, matrices, distances, row numbers.
    /// - **Sending it to another task inside `body` does not compile** either: the context is a
    ///   parameter of `body`, so the compiler's region analysis keeps it, and everything that
    ///   holds it, out of `Task { }` and other `sending` closures ("passing closure as a
    ///   'sending' parameter risks causing data races").
    /// - **Storing it in a variable outside `body` is harmless.** The compiler cannot see that
    ///   the thread keeps the same context, so it would let such a variable travel to another
    ///   task. The context is therefore taken from the thread while `body` runs and given back
    ///   only when nothing else holds it; when something does (a stored context, or a stored
    ///   geometry, which holds its context), the thread lets it go and makes a new one next
    ///   time. The stored context is then owned by whoever holds it alone, and the compiler's
    ///   rules for non-`Sendable` values apply to it as to any context made with ``init()``.
    public static func withCurrent<Result: Sendable, Failure: Error>(
        _ body: (GEOSContext) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try threadSlot.borrow(
            make: {
                guard let created = try? GEOSContext() else {
                    // GEOS_init_r only fails when memory is exhausted.
                    preconditionFailure("GEOS_init_r failed")
                }
                return created
            }, body)
    }

    /// Whether `self` is the calling thread's current context (for tests).
    static func isThreadContext(_ context: GEOSContext) -> Bool {
        threadSlot.holds(context)
    }
}

/// Contexts are not `Sendable`: GEOS handles must not be used by two threads at once.
@available(*, unavailable)
extension GEOSContext: Sendable {}

/// The GEOS error handler: stores the message on the context's box. Called by GEOS on the
/// thread that made the failing call.
private func geosieveErrorHandler(_ message: UnsafePointer<CChar>?, _ userData: UnsafeMutableRawPointer?) {
    guard let userData else { return }
    let box = Unmanaged<GEOSContext.MessageBox>.fromOpaque(userData).takeUnretainedValue()
    box.lastError = message.map { String(cString: $0) } ?? "unknown GEOS error"
}

/// Each thread's context.
private let threadSlot = ThreadSlot<GEOSContext>()
