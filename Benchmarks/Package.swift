// swift-tools-version:6.1
import PackageDescription

// GeoSieve's benchmarks: a nested package, so that package-benchmark and its dependencies never
// enter the graph of the library itself. Run from this directory:
//
//     swift package benchmark
//     swift package benchmark --target GEOSPredicateBenchmarks
let package = Package(
    name: "GeoSieveBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "GeoSieve", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The system GEOS C library, for the C-API baseline. (The root package's CGEOS target is
        // not a product, so this package declares its own.)
        .systemLibrary(
            name: "CGEOSBaseline",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"]), .brew(["geos"])]
        ),
        // Plain C loops over the GEOS C API: what a C programmer would write, the yardstick for
        // the Swift bridge.
        .target(
            name: "GEOSBaseline",
            dependencies: ["CGEOSBaseline"]
        ),
        .executableTarget(
            name: "GEOSPredicateBenchmarks",
            dependencies: [
                .product(name: "GeoSieve", package: "GeoSieve"),
                .product(name: "Benchmark", package: "package-benchmark"),
                "GEOSBaseline",
                "CGEOSBaseline",
            ],
            path: "Benchmarks/GEOSPredicateBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "package-benchmark"),
            ]
        ),
        .executableTarget(
            name: "GeometryCodecBenchmarks",
            dependencies: [
                .product(name: "GeoSieve", package: "GeoSieve"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/GeometryCodecBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "package-benchmark"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
