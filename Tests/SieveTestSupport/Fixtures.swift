import Foundation

/// The folder `Tests/Fixtures` of this package, found from this source file's location.
public let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// The URL of a fixture file.
public func fixtureURL(_ name: String) -> URL {
    fixturesDirectory.appendingPathComponent(name)
}

/// The text of a fixture file.
public func fixtureText(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: fixtureURL(name)), as: UTF8.self)
}
