// swift-tools-version:6.1
import PackageDescription

// The repository's concurrency tests under ThreadSanitizer, in a nested package of their own: it
// builds the engine (the `GeoSieve` product, without the RemoteSources trait) and these tests
// only, where a sanitized build of the root package would build every test target with the HTTP
// server, the clients and their TLS stack too. The test files are symbolic links to the root's
// own (Tests/ConcurrencyTests), so that they are written once and run in both packages:
//
//     swift build --package-path Sanitize --build-tests --sanitize=thread
//     TSAN_OPTIONS=halt_on_error=1 swift test --package-path Sanitize --sanitize=thread --skip-build
let package = Package(
    name: "GeoSieveSanitize",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "GeoSieve", path: "..", traits: []),
    ],
    targets: [
        // The root's test helpers (a link to Tests/SieveTestSupport).
        .target(name: "SieveTestSupport", dependencies: [.product(name: "GeoSieve", package: "GeoSieve")]),
        // The editable table under concurrent readers, the append-only buffers from several
        // threads, the threaded loaders; `@testable` imports work because debug builds of
        // dependencies are testable too.
        .testTarget(
            name: "ConcurrencyTests",
            dependencies: ["SieveTestSupport", .product(name: "GeoSieve", package: "GeoSieve")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
