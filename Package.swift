// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "GeoSieve",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GeoSieve", targets: ["GeoSieve"]),
        .library(name: "SieveGeometry", targets: ["SieveGeometry"]),
        .library(name: "SieveGEOS", targets: ["SieveGEOS"]),
        .executable(name: "geosieve", targets: ["geosieve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The system GEOS C library (libgeos_c), found through pkg-config.
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"]), .brew(["geos"])]
        ),
        // Geometry value types, spatial references and codecs. Pure Swift, no C.
        .target(name: "SieveGeometry"),
        // The GEOS bridge: contexts, owned geometries, prepared geometries, relationships.
        .target(name: "SieveGEOS", dependencies: ["SieveGeometry", "CGEOS"]),
        // Umbrella module re-exporting the public modules.
        .target(name: "GeoSieve", dependencies: ["SieveGeometry", "SieveGEOS"]),
        // The command-line tool.
        .executableTarget(
            name: "geosieve",
            dependencies: [
                "GeoSieve",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "SieveGeometryTests",
            dependencies: ["SieveGeometry"]
        ),
        .testTarget(
            name: "SieveGEOSTests",
            dependencies: ["SieveGEOS", "SieveGeometry", "CGEOS"]
        ),
        .testTarget(
            name: "GeoSieveCLITests",
            dependencies: ["geosieve"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
