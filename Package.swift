// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "GeoSieve",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GeoSieve", targets: ["GeoSieve"]),
        .library(name: "SieveBuffers", targets: ["SieveBuffers"]),
        .library(name: "SieveGeometry", targets: ["SieveGeometry"]),
        .library(name: "SieveGEOS", targets: ["SieveGEOS"]),
        .library(name: "SieveColumns", targets: ["SieveColumns"]),
        .library(name: "SieveSQL", targets: ["SieveSQL"]),
        .library(name: "SieveIndex", targets: ["SieveIndex"]),
        .library(name: "SieveProjection", targets: ["SieveProjection"]),
        .library(name: "SieveFeatures", targets: ["SieveFeatures"]),
        .library(name: "SieveFormats", targets: ["SieveFormats"]),
        .library(name: "SieveEditing", targets: ["SieveEditing"]),
        .library(name: "SieveMap", targets: ["SieveMap"]),
        .library(name: "SieveCQL", targets: ["SieveCQL"]),
        .library(name: "SievePostGIS", targets: ["SievePostGIS"]),
        .library(name: "SieveServer", targets: ["SieveServer"]),
        .library(name: "SieveClients", targets: ["SieveClients"]),
        .executable(name: "geosieve", targets: ["geosieve"]),
        .executable(name: "geosieve-bench", targets: ["geosieve-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The HTTP server of `geosieve serve`; without the swift-configuration and full-Foundation
        // traits, which it does not need.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // The HTTP client of the service tables (ArcGIS feature services, OGC API – Features).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already under async-http-client: named so the client can tell its "inflated answer
        // over the bound" error by type.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.26.0"),
        // Already under Hummingbird: the server's connection guard reads HTTP/1 heads (NIOHTTP1)
        // before they become HTTP types, to see repeated Host lines and the HTTP version.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
    ],
    targets: [
        // The system GEOS C library (libgeos_c), found through pkg-config.
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"]), .brew(["geos"])]
        ),
        // The system PROJ C library (libproj), found through pkg-config.
        .systemLibrary(
            name: "CPROJ",
            pkgConfig: "proj",
            providers: [.apt(["libproj-dev"]), .brew(["proj"])]
        ),
        // Append-only shared buffers: the storage of columns and geometry columns, which lets an
        // edited table publish a snapshot per batch without copying what the snapshot holds.
        // The lowest module: the one lock type (`Locked`) and the error protocol every error adopts
        // (`GeoSieveError`, `ErrorCategory`: one mapping to HTTP status, ArcGIS code, exit status).
        .target(name: "SieveBase"),
        .target(name: "SieveBuffers"),
        // The strict JSON reader (tree and pull), writer, number parsing and formatting: a utility
        // module under everything that speaks JSON; its API is `package`, not a product.
        .target(name: "SieveJSON"),
        // Geometry value types, spatial references and codecs. Pure Swift, no C.
        .target(name: "SieveGeometry", dependencies: ["SieveBase", "SieveBuffers", "SieveJSON"]),
        // The GEOS bridge: contexts, owned geometries, prepared geometries, relationships.
        .target(name: "SieveGEOS", dependencies: ["SieveBase", "SieveGeometry", "CGEOS"]),
        // Any spatial reference through PROJ: per-thread contexts, cached transformations,
        // geometry projection with densification; the exact 4326 ⇄ 3857 path stays SieveGeometry's.
        .target(name: "SieveProjection", dependencies: ["SieveBase", "SieveGeometry", "CPROJ"]),
        // Typed columns with validity bitmaps, dictionary-encoded strings, civil-time helpers:
        // the data layout the where-clause kernels scan and the feature table stores.
        .target(name: "SieveColumns", dependencies: ["SieveBuffers"]),
        // The quadtree over envelopes: bulk load, insert/remove/move, window, radius, nearest.
        .target(
            name: "SieveIndex",
            dependencies: ["SieveGeometry"],
            swiftSettings: [
                // Invariant checks after every mutation, in debug builds only (tests); never in
                // release, where they would turn O(1) edits into O(n).
                .define("SPATIAL_INTERNAL_CHECKS", .when(configuration: .debug)),
            ]
        ),
        // The where-clause language: lexer, Pratt parser, binder, vectorized evaluator.
        .target(name: "SieveSQL", dependencies: ["SieveBase", "SieveBuffers", "SieveColumns"]),
        // Schema, the columnar feature table, loading, queries.
        .target(
            name: "SieveFeatures",
            dependencies: ["SieveJSON", "SieveBase", "SieveColumns", "SieveSQL", "SieveCQL", "SieveGeometry", "SieveGEOS", "SieveIndex", "SieveProjection"]
        ),
        // The system SQLite library (libsqlite3), for GeoPackage files and the differential tests.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Files in and out through SQLite: OGC GeoPackage read and write.
        .target(name: "SieveFormats", dependencies: ["SieveJSON", "SieveBase", "SieveFeatures", "SieveGeometry", "SieveColumns", "CSQLite"]),
        // Editing: the editable table and its snapshots, edit batches and validation, attachments,
        // the local edit log and the merge with a service's edits.
        .target(
            name: "SieveEditing",
            dependencies: ["SieveBase", "SieveJSON", "SieveFeatures", "SieveFormats", "SieveColumns", "SieveGeometry", "SieveGEOS", "SieveProjection", "SieveSQL"]
        ),
        // Feature layers and the map: definition expressions, display filters, scale ranges,
        // selection, renderers, identify across layers and SVG drawing, on the feature table.
        .target(
            name: "SieveMap",
            dependencies: ["SieveProjection", "SieveBuffers", "SieveFormats", "SieveJSON", "SieveBase", "SieveFeatures", "SieveSQL", "SieveColumns", "SieveGeometry", "SieveGEOS", "SieveIndex"]
        ),
        // OGC CQL2 (text and JSON encodings): the filter language of OGC API – Features, read into
        // a tree of its own and written back; binding to the where-clause core comes on top.
        .target(name: "SieveCQL", dependencies: ["SieveJSON", "SieveBase", "SieveSQL", "SieveColumns", "SieveGeometry"]),
        // PostgreSQL/PostGIS tables as feature sources: queries pushed down as SQL with bound
        // parameters, import and export. Not in the umbrella: it brings SwiftNIO and postgres-nio.
        .target(
            name: "SievePostGIS",
            dependencies: [
                "SieveBase", "SieveFeatures", "SieveSQL", "SieveCQL", "SieveGeometry", "SieveColumns",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `geosieve serve`: tables as an ArcGIS REST FeatureServer and an OGC API – Features
        // service, on Hummingbird. Not in the umbrella: it brings SwiftNIO and the HTTP server.
        .target(
            name: "SieveServer",
            dependencies: ["SieveFormats", "SieveEditing", "SieveJSON",
                "SieveBase", "SieveFeatures", "SieveMap", "SieveCQL", "SieveGeometry", "SieveColumns", "SieveProjection",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Service tables: ArcGIS feature service layers and OGC API – Features collections read
        // over HTTP (AsyncHTTPClient) into local tables. Not in the umbrella: it brings SwiftNIO.
        .target(
            name: "SieveClients",
            dependencies: ["SieveColumns", "SieveFormats", "SieveEditing", "SieveJSON",
                "SieveBase", "SieveFeatures", "SieveGeometry", "SieveCQL", "SieveMap", "SievePostGIS",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),
        // Umbrella module re-exporting the public modules.
        .target(
            name: "GeoSieve",
            dependencies: [
                "SieveBase", "SieveBuffers", "SieveGeometry", "SieveGEOS", "SieveColumns", "SieveSQL", "SieveIndex", "SieveProjection", "SieveFeatures",
                "SieveFormats", "SieveEditing", "SieveMap", "SieveCQL",
            ]
        ),
        // The command-line tool.
        .executableTarget(
            name: "geosieve",
            dependencies: ["SieveJSON",
                "GeoSieve", "SieveBase", "SievePostGIS", "SieveServer", "SieveClients",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The benchmark executable: seeded workloads measured in one process, printed as JSON lines.
        .executableTarget(
            name: "geosieve-bench",
            dependencies: [
                "GeoSieve", "SievePostGIS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Shared helpers of the test targets (seeded generators); not a product.
        .target(name: "SieveTestSupport", dependencies: ["CSQLite"], path: "Tests/SieveTestSupport"),
        .testTarget(
            name: "SieveBuffersTests",
            dependencies: ["SieveBuffers", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveGeometryTests",
            dependencies: ["SieveJSON", "SieveGeometry", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveGEOSTests",
            dependencies: ["SieveGEOS", "SieveGeometry", "CGEOS", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveProjectionTests",
            dependencies: ["SieveProjection", "SieveGeometry", "SieveGEOS", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveColumnsTests",
            dependencies: ["SieveColumns", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveIndexTests",
            dependencies: ["SieveIndex", "SieveGeometry", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveSQLTests",
            dependencies: ["SieveSQL", "SieveColumns", "CSQLite", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveFeaturesTests",
            dependencies: ["SieveIndex", "SieveEditing", "SieveFormats", "SieveJSON", "SieveFeatures", "SieveSQL", "SieveCQL", "SieveColumns", "SieveGeometry", "SieveGEOS", "SieveProjection", "SieveTestSupport", "SieveMap"]
        ),
        .testTarget(
            name: "SieveFormatsTests",
            dependencies: ["SieveEditing", "SieveFormats", "SieveFeatures", "SieveGeometry", "SieveGEOS", "SieveColumns", "CSQLite", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveMapTests",
            dependencies: ["SieveEditing", "SieveFormats", "SieveMap", "SieveFeatures", "SieveSQL", "SieveColumns", "SieveGeometry", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveCQLTests",
            dependencies: ["SieveJSON", "SieveCQL", "SieveSQL", "SieveColumns", "SieveGeometry", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SievePostGISTests",
            dependencies: ["SieveEditing", "SieveFormats", "SievePostGIS", "SieveFeatures", "SieveCQL", "SieveSQL", "SieveGeometry", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveClientsTests",
            dependencies: ["SieveSQL", "SieveEditing", "SieveJSON",
                "SieveClients", "SieveServer", "SieveFeatures", "SieveGeometry", "SieveColumns", "SieveCQL", "SieveMap", "SievePostGIS", "SieveFormats",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "SieveServerTests",
            dependencies: ["SieveSQL", "SieveProjection", "SieveGEOS", "SieveColumns", "SieveEditing", "SieveFormats", "SieveJSON",
                "SieveServer", "SieveFeatures", "SieveGeometry", "SieveTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "GeoSieveTests",
            dependencies: ["GeoSieve"]
        ),
        .testTarget(
            name: "GeoSieveCLITests",
            dependencies: ["SieveEditing", "SieveFeatures", "SieveFormats", "SieveGEOS", "SievePostGIS", "SieveClients", "geosieve"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
