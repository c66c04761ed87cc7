import CSQLite
import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import Testing

/// The folder `Tests/Fixtures` of this package, found from this source file's location.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// The URL of a fixture file.
func fixtureURL(_ name: String) -> URL {
    fixturesDirectory.appendingPathComponent(name)
}

/// The three GeoJSON fixtures.
let fixtureNames = ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"]

/// A fresh temporary folder, removed after `body`.
func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("geosieve-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// The names in a folder, sorted.
func folderContents(_ folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
}

/// The full path of an executable on PATH, or `nil`.
func executableOnPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for folder in path.split(separator: ":") {
        let candidate = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

/// Runs a program; returns its exit status and standard output (standard error is returned
/// after it when the status is not 0).
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var text = String(decoding: data, as: UTF8.self)
    if process.terminationStatus != 0 { text += String(decoding: errorData, as: UTF8.self) }
    return (process.terminationStatus, text)
}

/// Runs SQL statements on the SQLite database at `path` (created when missing), for building
/// test files by hand.
func executeSQL(_ path: String, _ sql: String) throws {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else {
        sqlite3_close(db)
        throw TestFailure("cannot open \(path)")
    }
    defer { sqlite3_close(db) }
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
        let text = message.map { String(cString: $0) } ?? "?"
        sqlite3_free(message)
        throw TestFailure("SQL failed: \(text)")
    }
}

/// The rows of a query on the SQLite database at `path`, as texts.
func querySQL(_ path: String, _ sql: String) throws -> [[String?]] {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
        sqlite3_close(db)
        throw TestFailure("cannot open \(path)")
    }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
        throw TestFailure("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
    defer { sqlite3_finalize(statement) }
    var rows: [[String?]] = []
    while sqlite3_step(statement) == SQLITE_ROW {
        rows.append(
            (0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
    }
    return rows
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The GeoPackage error `body` throws, or `nil`.
func geoPackageError(_ body: () throws -> Void) -> GeoPackageError? {
    do {
        try body()
        return nil
    } catch let error as GeoPackageError {
        return error
    } catch {
        return nil
    }
}
