// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "GeoSieve",
    platforms: [.macOS(.v15)],
    products: [
        // The engine: every public module re-exported (`import GeoSieve`).
        .library(name: "GeoSieve", targets: ["GeoSieve"]),
        // What a user may depend on apart, because each brings SwiftNIO and its own dependencies:
        // the HTTP server, the HTTP clients of feature services and OGC API – Features, PostGIS.
        // The building blocks (buffers, columns, JSON, formats) are modules of GeoSieve, not
        // products: they are not promises of a stable API of their own.
        .library(name: "SieveServer", targets: ["SieveServer"]),
        .library(name: "SieveClients", targets: ["SieveClients"]),
        .library(name: "SievePostGIS", targets: ["SievePostGIS"]),
        .executable(name: "geosieve", targets: ["geosieve"]),
        .executable(name: "geosieve-bench", targets: ["geosieve-bench"]),
    ],
    traits: [
        // Sources across the network in `geosieve` and `SourceLocator`: ArcGIS feature services
        // and OGC API – Features collections (AsyncHTTPClient) and PostGIS tables (PostgresNIO).
        // Both bring SwiftNIO's TLS stack (swift-nio-ssl and BoringSSL), about half of a first
        // build; `swift run --disable-default-traits geosieve …` builds the tool without them.
        // On by default: a plain `swift build` has every capability.
        .trait(
            name: "RemoteSources",
            description: "Feature services, OGC API collections and PostGIS tables as sources of geosieve and SourceLocator"
        ),
        .default(enabledTraits: ["RemoteSources"]),
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
        // Already under postgres-nio: the TLS configuration of PostgreSQL connections (sslmode,
        // sslrootcert).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The Prometheus text format of `geosieve serve --metrics` (counters, gauges and
        // histograms of a registry the server owns).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The YAML reader of `geosieve serve --config` (libyaml inside), whose nodes keep their
        // lines and columns for errors that say where.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // Already under Hummingbird: `geosieve serve --config` reloads on SIGHUP through its
        // UnixSignals sequence.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
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
        // The lowest module: the one lock type (`Locked`) and the error protocol every error adopts
        // (`GeoSieveError`, `ErrorCategory`: one mapping to HTTP status, ArcGIS code, exit status).
        .target(name: "SieveBase"),
        // Append-only shared buffers: the storage of columns and geometry columns, which lets an
        // edited table publish a snapshot per batch without copying what the snapshot holds.
        .target(name: "SieveBuffers"),
        // The strict JSON reader (tree and pull), writer, number parsing and formatting: a utility
        // module under everything that speaks JSON. Not a product: its reader is public only so
        // that other modules can specialize and inline it (Swift does not for `package` code).
        .target(name: "SieveJSON"),
        // Geometry value types, spatial references and codecs. Pure Swift, no C.
        .target(name: "SieveGeometry", dependencies: ["SieveBase", "SieveBuffers", "SieveJSON"]),
        // The GEOS bridge: contexts, owned geometries, prepared geometries, relationships.
        .target(name: "SieveGEOS", dependencies: ["CGEOS", "SieveBase", "SieveGeometry"]),
        // Any spatial reference through PROJ: per-thread contexts, cached transformations,
        // geometry projection with densification; the exact 4326 ⇄ 3857 path stays SieveGeometry's.
        .target(name: "SieveProjection", dependencies: ["CPROJ", "SieveBase", "SieveGeometry"]),
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
        // Schema, the columnar feature table, queries, spatial filters, statistics, and the source
        // protocol (`FeatureSource`, `QueryRequest`, `QueryAnswer`) every front door calls.
        .target(
            name: "SieveFeatures",
            dependencies: ["SieveBase", "SieveCQL", "SieveColumns", "SieveGEOS", "SieveGeometry", "SieveIndex", "SieveJSON", "SieveProjection", "SieveSQL"]
        ),
        // The system SQLite library (libsqlite3), for GeoPackage files and the differential tests.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The system zlib, for zip archives (zipped shapefiles).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The system Snappy library (its C interface), for Snappy-compressed Parquet pages.
        .systemLibrary(
            name: "CSnappy",
            pkgConfig: "snappy",
            providers: [.apt(["libsnappy-dev"]), .brew(["snappy"])]
        ),
        // The system Zstandard library, for ZSTD-compressed Parquet pages (GeoParquet).
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        // The formats users bring and take: GeoJSON, GeoJSON Sequence and Esri JSON loading; the
        // GeoJSON, Esri JSON, CSV and GeoJSON Sequence writers; OGC GeoPackage through SQLite;
        // ESRI Shapefiles (and zip archives of them), CSV,
        // FlatGeobuf and GeoParquet.
        .target(
            name: "SieveFormats",
            dependencies: ["CSQLite", "CSnappy", "CZlib", "CZstd", "SieveBase", "SieveColumns", "SieveFeatures", "SieveGeometry", "SieveJSON", "SieveProjection", "SieveSQL"]
        ),
        // Editing: the editable table and its snapshots, edit batches and validation, attachments,
        // the local edit log and the merge with a service's edits.
        .target(
            name: "SieveEditing",
            dependencies: ["SieveBase", "SieveColumns", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveGeometry", "SieveJSON", "SieveProjection", "SieveSQL"]
        ),
        // The ArcGIS REST wire format shared by the server, the clients and the command line: query
        // parameters (`objectIds`, `outFields`, `esriSpatialRel`), form encoding, the count / ids /
        // extent / feature-set answers, and applyEdits JSON.
        .target(
            name: "SieveArcGISREST",
            dependencies: ["SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGeometry", "SieveJSON", "SieveSQL"]
        ),
        // Feature layers and the map: definition expressions, display filters, scale ranges,
        // selection, renderers, identify across layers and SVG drawing, on the feature table.
        .target(
            name: "SieveMap",
            dependencies: ["SieveBase", "SieveBuffers", "SieveColumns", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveGeometry", "SieveIndex", "SieveJSON", "SieveProjection", "SieveSQL"]
        ),
        // OGC CQL2 (text and JSON encodings): the filter language of OGC API – Features, read into
        // a tree of its own and written back; binding to the where-clause core comes on top.
        .target(name: "SieveCQL", dependencies: ["SieveBase", "SieveColumns", "SieveGeometry", "SieveJSON", "SieveSQL"]),
        // PostgreSQL/PostGIS tables as feature sources: queries pushed down as SQL with bound
        // parameters, import and export. Not in the umbrella: it brings SwiftNIO and postgres-nio.
        .target(
            name: "SievePostGIS",
            dependencies: [
                "SieveBase", "SieveCQL", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveGeometry", "SieveSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `geosieve serve`: tables as an ArcGIS REST FeatureServer and an OGC API – Features
        // service, on Hummingbird. Not in the umbrella: it brings SwiftNIO and the HTTP server.
        .target(
            name: "SieveServer",
            dependencies: [
                "SieveArcGISREST", "SieveBase", "SieveCQL", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGeometry", "SieveJSON", "SieveMap", "SieveProjection", "SieveSQL",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Service tables: ArcGIS feature service layers and OGC API – Features collections read
        // over HTTP (AsyncHTTPClient) into local tables, and `SourceLocator`, which opens any
        // source by name (files, PostGIS, services). Not in the umbrella: it brings SwiftNIO.
        .target(
            name: "SieveClients",
            dependencies: [
                "SieveArcGISREST", "SieveBase", "SieveCQL", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGeometry", "SieveJSON", "SieveMap",
                .target(name: "SievePostGIS", condition: .when(traits: ["RemoteSources"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["RemoteSources"])),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras", condition: .when(traits: ["RemoteSources"])),
            ]
        ),
        // Umbrella module re-exporting the public modules.
        .target(
            name: "GeoSieve",
            dependencies: ["SieveArcGISREST", "SieveBase", "SieveBuffers", "SieveCQL", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveGeometry", "SieveIndex", "SieveMap", "SieveProjection", "SieveSQL"]
        ),
        // The command-line tool.
        .executableTarget(
            name: "geosieve",
            dependencies: [
                "GeoSieve", "SieveBase", "SieveClients", "SieveJSON", "SieveServer",
                .target(name: "SievePostGIS", condition: .when(traits: ["RemoteSources"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The benchmark executable: seeded workloads measured in one process, printed as JSON lines.
        .executableTarget(
            name: "geosieve-bench",
            dependencies: [
                "GeoSieve", "SieveFormats", "SieveGeometry", "SieveJSON",
                .target(name: "SievePostGIS", condition: .when(traits: ["RemoteSources"])),
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
            dependencies: ["SieveGeometry", "SieveJSON", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveGEOSTests",
            dependencies: ["CGEOS", "SieveGEOS", "SieveGeometry", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveProjectionTests",
            dependencies: ["SieveGEOS", "SieveGeometry", "SieveProjection", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveColumnsTests",
            dependencies: ["SieveColumns", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveIndexTests",
            dependencies: ["SieveGeometry", "SieveIndex", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveSQLTests",
            dependencies: ["CSQLite", "SieveColumns", "SieveSQL", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveFeaturesTests",
            dependencies: ["SieveArcGISREST", "SieveCQL", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveGeometry", "SieveIndex", "SieveJSON", "SieveMap", "SieveProjection", "SieveSQL", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveFormatsTests",
            dependencies: ["CSQLite", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveGeometry", "SieveJSON", "SieveSQL", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveMapTests",
            dependencies: ["SieveArcGISREST", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGeometry", "SieveMap", "SieveSQL", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SieveCQLTests",
            dependencies: ["SieveCQL", "SieveColumns", "SieveGeometry", "SieveJSON", "SieveSQL", "SieveTestSupport"]
        ),
        .testTarget(
            name: "SievePostGISTests",
            dependencies: [
                "SieveCQL", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGeometry", "SieveSQL", "SieveServer", "SieveTestSupport",
                .target(name: "SievePostGIS", condition: .when(traits: ["RemoteSources"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["RemoteSources"])),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "SieveClientsTests",
            dependencies: [
                "SieveCQL", "SieveClients", "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGeometry", "SieveJSON", "SieveMap", "SieveSQL", "SieveServer", "SieveTestSupport",
                .target(name: "SievePostGIS", condition: .when(traits: ["RemoteSources"])),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "SieveServerTests",
            dependencies: [
                "SieveColumns", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveGeometry", "SieveJSON", "SieveProjection", "SieveSQL", "SieveServer", "SieveTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "GeoSieveTests",
            dependencies: ["GeoSieve"]
        ),
        .testTarget(
            name: "GeoSieveCLITests",
            dependencies: [
                "SieveClients", "SieveEditing", "SieveFeatures", "SieveFormats", "SieveGEOS", "SieveTestSupport", "geosieve",
                .target(name: "SievePostGIS", condition: .when(traits: ["RemoteSources"])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
