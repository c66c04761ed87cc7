import Testing

/// The tags that sort the suites by what they need and how long they take, so that the core
/// runs on its own while editing: `Scripts/test-fast.sh` skips the suites tagged with any of them
/// (docs/testing.md). Tag whole suites, not single tests: the script reads the tags off the
/// `@Suite` attributes.
extension Tag {
    /// Long runs: seeded differential and property tests over many inputs, big tables.
    @Tag public static var slow: Self
    /// Tests that run the `geosieve` executable as a subprocess.
    @Tag public static var cli: Self
    /// Tests that start an HTTP server on a loopback port or speak HTTP to one.
    @Tag public static var network: Self
    /// Tests that need a PostGIS server (`Scripts/postgis-server.sh`); skipped without one.
    @Tag public static var postgis: Self
}
