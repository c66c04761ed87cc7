import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A monotonic clock reading in nanoseconds.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (CLOCK_MONOTONIC).
    static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Runs `body` and returns its result with the elapsed nanoseconds.
    static func measure<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (result: T, nanoseconds: UInt64) {
        let start = nanoseconds()
        let result = try body()
        let end = nanoseconds()
        return (result, end - start)
    }
}

/// Median, minimum and maximum of a set of timings, in milliseconds.
struct TimingSummary {
    /// The median (the mean of the two middle samples for an even count).
    let medianMilliseconds: Double
    /// The fastest sample.
    let minMilliseconds: Double
    /// The slowest sample.
    let maxMilliseconds: Double

    /// Summarizes `samples` (nanoseconds; at least one).
    init(nanoseconds samples: [UInt64]) {
        precondition(!samples.isEmpty, "no samples")
        let sorted = samples.sorted().map { Double($0) / 1_000_000 }
        let middle = sorted.count / 2
        medianMilliseconds = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        minMilliseconds = sorted[0]
        maxMilliseconds = sorted[sorted.count - 1]
    }
}

/// One result line of the benchmark, printed as a single-line JSON object:
/// `{"workload":"w1.q2","engine":"geosieve","median_ms":…,"min_ms":…,"max_ms":…,"rows":…,"result":…}`,
/// the size field named by ``sizeName`` (`rows`, `features`, `queries`, `operations`) and followed
/// by any ``extras`` (e.g. `"p99_us":…`).
struct ResultLine {
    /// The workload and query, e.g. `w1.q2` or `w1.load`.
    var workload: String
    /// The engine measured.
    var engine: String = "geosieve"
    /// The timings.
    var timing: TimingSummary
    /// Rows in the table, or the number of features, queries or operations (see ``sizeName``).
    var rows: Int
    /// The query's answer (a count), or the rows loaded for a load.
    var result: Int
    /// The JSON name of ``rows``.
    var sizeName = "rows"
    /// Further numeric fields, printed after `result` in this order: names and JSON number text.
    var extras: [(name: String, value: String)] = []

    /// The JSON text, without a trailing newline. Times have microsecond resolution.
    var json: String {
        "{\"workload\":\"\(workload)\",\"engine\":\"\(engine)\""
            + ",\"median_ms\":\(Self.milliseconds(timing.medianMilliseconds))"
            + ",\"min_ms\":\(Self.milliseconds(timing.minMilliseconds))"
            + ",\"max_ms\":\(Self.milliseconds(timing.maxMilliseconds))"
            + ",\"\(sizeName)\":\(rows),\"result\":\(result)"
            + extras.map { ",\"\($0.name)\":\($0.value)" }.joined() + "}"
    }

    /// `value` with exactly three decimals (e.g. `12.345`, `0.090`), never in exponent form.
    static func milliseconds(_ value: Double) -> String {
        let micros = Int((value * 1000).rounded())
        let whole = micros / 1000
        let fraction = String(micros % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Writes a progress note to standard error (standard output carries only result lines).
func note(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes one result line to standard output, unbuffered (so it interleaves correctly with the
/// notes on standard error).
func emit(_ line: ResultLine) {
    FileHandle.standardOutput.write(Data((line.json + "\n").utf8))
}
