// swift-tools-version:6.1
import PackageDescription

// GeoSieve's fuzz targets: a nested package, so that fuzzing builds never touch the library's
// own build. Build and run them with `Fuzz/run.sh`, which passes
// `-sanitize=fuzzer,address -parse-as-library -DFUZZING`: each target's entry point then hands
// its test function to libFuzzer's driver. A plain `swift build` compiles them as do-nothing
// programs, which keeps them type-checked.
let targets = [
    "fuzz-where",
    "fuzz-wkt",
    "fuzz-wkb",
    "fuzz-geojson",
    "fuzz-esrijson",
    "fuzz-features",
    "fuzz-cql2",
    "fuzz-formats",
]

let package = Package(
    name: "GeoSieveFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "GeoSieve", path: ".."),
    ],
    targets: [
        // What the targets share: fixtures, the checks of round trips and of GEOS, failure reports.
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzDriver", .product(name: "GeoSieve", package: "GeoSieve")]
        ),
        // The declaration of libFuzzer's driver entry point.
        .target(name: "CFuzzDriver"),
    ] + targets.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", .product(name: "GeoSieve", package: "GeoSieve")]
        )
    } + [
        // Writes the seed corpora from the repository's tests (`Fuzz/run.sh` runs it).
        .executableTarget(
            name: "fuzz-seeds",
            dependencies: ["FuzzSupport", .product(name: "GeoSieve", package: "GeoSieve")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
