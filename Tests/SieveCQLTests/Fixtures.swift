import Foundation

/// The folder `Tests/Fixtures` of this package, found from this source file's location.
let fixturesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

/// The URL of a fixture file.
func fixtureURL(_ name: String) -> URL {
    fixturesDirectory.appendingPathComponent(name)
}
