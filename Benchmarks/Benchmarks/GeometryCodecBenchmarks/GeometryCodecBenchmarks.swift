// Geometry codec benchmarks: decoding (and encoding) WKB, GeoJSON and WKT.
//
// Two inputs:
// - a seeded polygon of 100,000 vertices (a star-like ring with wobbling radius), encoded once
//   in each format before measuring;
// - the five New York City boroughs from the test fixtures (76,063 vertices of real
//   multipolygons, about 3 MB of GeoJSON text), read once from Tests/Fixtures and split into one
//   geometry text per borough.
// Each iteration decodes (or encodes) the whole input once; divide by the vertex count for the
// cost per vertex.

import Benchmark
import Foundation
import GeoSieve

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 200
    )

    let polygon: Geometry
    let boroughs: [String]
    do {
        polygon = try syntheticPolygon(vertexCount: 100_000, seed: 0xC0DE_C0DE)
        let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/nybb.geojson")
        boroughs = try geometryTexts(ofFeatureCollectionAt: fixtures)
    } catch {
        Benchmark("GeometryCodecBenchmarks.fixtures") { benchmark in
            benchmark.error("could not build the fixtures: \(error)")
        }
        return
    }
    let wkb = polygon.wkb()
    let wkt = polygon.wkt
    let geoJSON = polygon.geoJSON

    Benchmark("Decode.WKB.polygon100k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Geometry(wkb: wkb)) }
    }
    Benchmark("Decode.GeoJSON.polygon100k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Geometry(geoJSON: geoJSON)) }
    }
    Benchmark("Decode.WKT.polygon100k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try Geometry(wkt: wkt)) }
    }
    Benchmark("Encode.WKB.polygon100k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(polygon.wkb()) }
    }
    Benchmark("Encode.GeoJSON.polygon100k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(polygon.geoJSON) }
    }
    Benchmark("Decode.GeoJSON.nybb-boroughs") { benchmark in
        // The five borough geometries, each a GeoJSON MultiPolygon text.
        for _ in benchmark.scaledIterations {
            for text in boroughs { blackHole(try Geometry(geoJSON: text)) }
        }
    }
}

/// A closed ring of `vertexCount` vertices around the origin with a seeded, wobbling radius.
func syntheticPolygon(vertexCount: Int, seed: UInt64) throws -> Geometry {
    var state = seed
    func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    var ring: [Point] = []
    ring.reserveCapacity(vertexCount + 1)
    for i in 0..<vertexCount {
        let angle = Double(i) / Double(vertexCount) * 2 * Double.pi
        let radius = 100 + 10 * next()
        ring.append(Point(x: radius * cos(angle), y: radius * sin(angle)))
    }
    ring.append(ring[0])
    return .polygon(try Polygon(exterior: ring))
}

/// The geometry member of every feature of a GeoJSON FeatureCollection file, as JSON text.
func geometryTexts(ofFeatureCollectionAt url: URL) throws -> [String] {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    guard let collection = object as? [String: Any], let features = collection["features"] as? [[String: Any]] else {
        return []
    }
    return try features.compactMap { feature in
        guard let geometry = feature["geometry"] else { return nil }
        return String(decoding: try JSONSerialization.data(withJSONObject: geometry), as: UTF8.self)
    }
}
