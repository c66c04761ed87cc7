import Foundation
import GeoSieve

/// Helpers shared by the fuzz targets.
///
/// A fuzz target turns its input into a value the engine accepts (text or bytes), runs the engine
/// on it and checks properties that must hold for every input: no crash (the sanitizers and the
/// Swift runtime's traps report those), round trips that settle after one write, answers that
/// agree between two independent paths. A broken property calls ``Fuzzing/fail(_:)``, which
/// stops the process so that libFuzzer records the input as a crash.
public enum Fuzzing {
    /// Stops the run: libFuzzer saves the input that got here.
    public static func fail(_ message: @autoclosure () -> String) -> Never {
        FileHandle.standardError.write(Data(("fuzz property failed: " + message() + "\n").utf8))
        abort()
    }

    /// Stops the run when `condition` is false.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// The input as UTF-8 text (invalid sequences become U+FFFD, as a user's text would after decoding).
    public static func text(_ data: UnsafePointer<UInt8>?, _ count: Int) -> String {
        guard let data, count > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    }

    /// The input as bytes.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let data, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// The repository's `Tests/Fixtures` folder, found from this file's path.
    public static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // FuzzSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // Fuzz
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Tests/Fixtures")

    /// At most the first `limit` characters of `text`, for failure messages.
    public static func excerpt(_ text: String, limit: Int = 200) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
    }
}
