import SieveColumns
import SieveFeatures
import SieveFormats
import SieveGEOS
import SieveGeometry
import SieveIndex
import SieveSQL
import SieveJSON

extension FeatureTable {
    /// The features within ``IdentifyParameters/mapTolerance`` of the identify point, nearest
    /// first.
    ///
    /// Plan: the quadtree's radius query (envelopes within the radius of the point), the where
    /// clause over those candidates, then the exact distance of each geometry to the point —
    /// computed directly for points, by GEOS (`GEOSDistance_r`) for everything else, so a
    /// polygon containing the point is at distance 0. A feature is hit when that distance is at
    /// most the radius. Hits are ordered by distance, ties by ascending object ID, and cut at
    /// ``IdentifyParameters/maxResults`` (0: all). Rows without geometry are never hit.
    ///
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for a tolerance outside
    ///   0…100, a view size that is not positive, a map extent without area, non-finite coordinates
    ///   or a negative `maxResults`; `WhereClauseError` (SieveSQL) for a bad where clause;
    ///   ``/SieveFeatures/FeatureTableError/Kind/invalidGeometry`` when GEOS fails on a feature's
    ///   geometry.
    public func identify(_ parameters: IdentifyParameters) throws -> IdentifyResults {
        try identify(parameters, restrictedBy: nil)
    }

    /// ``identify(_:)`` among the rows that also satisfy `restriction` (a layer's definition
    /// expression and display filter, compiled against this table's schema), ANDed with the
    /// parameters' where clause.
    /// - Throws: As ``identify(_:)``.
    public func identify(_ parameters: IdentifyParameters, restrictedBy restriction: CompiledWhereClause?) throws
        -> IdentifyResults
    {
        try parameters.validate()
        var displayIndex = displayFieldIndex
        if let name = parameters.displayFieldName {
            displayIndex = try QueryPlan.resolve(name, in: schema, parameter: "the display field").index
        }
        var clause = try CompiledWhereClause(
            parameters.whereClause, schema: schema, collation: parameters.collation ?? collation)
        if let restriction, !restriction.selectsEverything { clause = clause.and(restriction) }
        let radius = parameters.mapTolerance
        let (x, y) = (parameters.x, parameters.y)
        var candidates: [UInt32] = []
        withSpatialIndex { $0.query(nearX: x, y: y, radius: radius, into: &candidates) }
        candidates = visibleRows(candidates)
        candidates.sort()
        if !clause.selectsEverything {
            candidates = clause.matchingRows(in: columns, rowCount: count, candidates: candidates)
        }
        let limit = parameters.maxResults
        let envelopes = EnvelopeColumns(geometryColumn)
        if limit > 0, candidates.count > limit {
            candidates = Self.nearestFirst(candidates, x: x, y: y, envelopes: envelopes)
        }
        /// The `limit` smallest distances hit so far, ascending (with a limit only).
        var nearest: [Double] = []
        var hits: [(row: Int, distance: Double)] = []
        // Point features are measured from the column's coordinate arrays, lines and polygons
        // from its shape arrays (``ShapeDistance``) when that decides; any other feature's
        // geometry is materialized for GEOS. Reading a point repeats SpatialFilter.point's few
        // lines on purpose: called across the module boundary it copies `shapes` per candidate
        // (a retain and release per buffer), which made identify across five layers 5 % slower.
        let column = geometryColumn
        let pointXs = column.pointX, pointYs = column.pointY
        let shapes = column.shapes
        let coordinates = shapes?.xy ?? ColumnBuffer<Double>()
        let xmins = envelopes.xmin
        try coordinates.withUnsafeBufferPointer { xy throws(FeatureTableError) in
            try GEOSContext.withCurrent { context throws(FeatureTableError) in
                var point: GEOSGeometry?
                for candidate in candidates {
                    let row = Int(candidate)
                    // With a limit, candidates come nearest envelope first: once an envelope is
                    // farther than the limit-th hit (by more than any rounding), so are the rest.
                    if limit > 0, nearest.count == limit, Self.lowerBound(row: row, x: x, y: y, envelopes: envelopes) > nearest[limit - 1] { break }
                    // Rows without geometry or with an empty one have no envelope.
                    guard !xmins[row].isNaN else { continue }
                    let distance: Double
                    var measured: Double?
                    if let shapes {
                        if let kind = shapes.kind(row: row) {
                            if kind == .point {
                                let p = shapes.positions(row: row).lowerBound
                                measured = Self.distance(dx: shapes.x(p) - x, dy: shapes.y(p) - y)
                            } else {
                                measured = ShapeDistance.measure(x: x, y: y, row: row, kind: kind, shapes: shapes, xy: xy)
                            }
                        }
                    } else {
                        measured = Self.distance(dx: pointXs[row] - x, dy: pointYs[row] - y)
                    }
                    if let measured {
                        distance = measured
                    } else {
                        guard let geometry = column[row] else { continue }
                        do throws(GEOSError) {
                            let target: GEOSGeometry
                            if let point {
                                target = point
                            } else {
                                target = try GEOSGeometry(.point(Point(x: x, y: y)), context: context)
                                point = target
                            }
                            distance = try GEOSGeometry(geometry, context: context).distance(to: target)
                        } catch {
                            throw FeatureTableError(
                                .invalidGeometry, "GEOS failed measuring the distance to the identify point: \(error.message)",
                                objectID: objectID(row: row))
                        }
                    }
                    if distance <= radius {
                        hits.append((row, distance))
                        if limit > 0 {
                            nearest.insert(distance, at: nearest.firstIndex { $0 > distance } ?? nearest.count)
                            if nearest.count > limit { nearest.removeLast() }
                        }
                    }
                }
            }
        }
        let ids = objectIDs
        hits.sort { $0.distance < $1.distance || ($0.distance == $1.distance && ids[$0.row] < ids[$1.row]) }
        if parameters.maxResults > 0, hits.count > parameters.maxResults {
            hits.removeSubrange(parameters.maxResults...)
        }
        let fields = schema.fields
        let names = fields.map(\.name)
        let columns = columns
        let displayName = displayIndex.map { names[$0] }
        let displayDateOnly = displayIndex.map { fields[$0].type == .dateOnly } ?? false
        let results = hits.map { hit in
            IdentifyResult(
                row: hit.row, objectID: ids[hit.row], distance: hit.distance, displayFieldName: displayName,
                displayValue: displayIndex.map { Self.displayText(of: columns[$0][hit.row], dateOnly: displayDateOnly) } ?? "",
                fieldNames: names, columns: columns, geometry: parameters.returnGeometry ? geometry(row: hit.row) : nil)
        }
        return IdentifyResults(table: self, results: results)
    }

    /// A lower bound of the distance from (`x`, `y`) to row `row`'s geometry, less a margin
    /// above any rounding of a measured distance: the larger offset from the point to the row's
    /// envelope, minus 10⁻⁹ of the largest magnitude of the point and the envelope (every vertex
    /// lies in the envelope, so a measured distance is off by far less).
    private static func lowerBound(row: Int, x: Double, y: Double, envelopes e: EnvelopeColumns) -> Double {
        let (xmin, ymin, xmax, ymax) = (e.xmin[row], e.ymin[row], e.xmax[row], e.ymax[row])
        guard !xmin.isNaN else { return -.infinity }
        let gap = Swift.max(xmin - x, x - xmax, ymin - y, y - ymax)
        let magnitude = Swift.max(Swift.abs(x), Swift.abs(y), Swift.abs(xmin), Swift.abs(xmax), Swift.abs(ymin), Swift.abs(ymax))
        return gap - 1e-9 * magnitude
    }

    /// The rows' envelope bounds, read once per call rather than through the geometry column
    /// per candidate.
    private struct EnvelopeColumns {
        let xmin, ymin, xmax, ymax: ColumnBuffer<Double>
        init(_ column: GeometryColumn) { (xmin, ymin, xmax, ymax) = (column.xmin, column.ymin, column.xmax, column.ymax) }
    }

    /// `candidates` ordered by ``lowerBound(row:x:y:envelopes:)``, ascending (ties by row).
    private static func nearestFirst(_ candidates: [UInt32], x: Double, y: Double, envelopes: EnvelopeColumns) -> [UInt32] {
        let bounds = candidates.map { lowerBound(row: Int($0), x: x, y: y, envelopes: envelopes) }
        return candidates.indices.sorted { bounds[$0] < bounds[$1] || (bounds[$0] == bounds[$1] && candidates[$0] < candidates[$1]) }
            .map { candidates[$0] }
    }

    /// The length of `(dx, dy)`, `√(dx² + dy²)`, to within a few units in the last place
    /// everywhere: directly when the sum of squares is a normal, finite number; otherwise (the
    /// squares overflow, or fall below 2^-1022, where they lose precision or vanish) as
    /// `m·√(1 + (n/m)²)` with `m` the larger and `n` the smaller offset.
    static func distance(dx: Double, dy: Double) -> Double {
        let squares = dx * dx + dy * dy
        if squares >= 0x1p-1022, squares.isFinite { return squares.squareRoot() }
        let ax = Swift.abs(dx), ay = Swift.abs(dy)
        let larger = Swift.max(ax, ay), smaller = Swift.min(ax, ay)
        guard larger > 0, larger.isFinite else { return larger }
        let ratio = smaller / larger
        return larger * (1 + ratio * ratio).squareRoot()
    }

    /// The schema index of the field identify shows: ``/SieveFeatures/Schema/displayFieldIndex``.
    public var displayFieldIndex: Int? { schema.displayFieldIndex }

    /// A value as identify shows it: integers in decimal, doubles in their shortest form
    /// (`1.5`, `889953`), strings as they are, dates as ISO 8601 UTC text (the days of a
    /// date-only field, `dateOnly`, as `yyyy-mm-dd`), NULL as `Null` (as ArcGIS's identify writes
    /// it).
    public static func displayText(of value: ScalarValue, dateOnly: Bool = false) -> String {
        switch value {
        case .null: "Null"
        case .integer(let v): String(v)
        case .double(let v): formatNumber(v)
        case .string(let s): s
        case .date(let ms): CivilTime.format(milliseconds: ms, dateOnlyAtMidnight: dateOnly)
        case .boolean(let b): b ? "true" : "false"
        }
    }
}

/// The features an identify hit, nearest first: a random-access collection of
/// ``IdentifyResult``, written out with ``json(layerID:layerName:)``.
public struct IdentifyResults: RandomAccessCollection, Sendable {
    /// The table identified.
    public let table: FeatureTable
    /// The hits, nearest first (ties by ascending object ID).
    public let results: [IdentifyResult]

    package init(table: FeatureTable, results: [IdentifyResult]) {
        self.table = table
        self.results = results
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The number of hits.
    public var endIndex: Int { results.count }
    /// The hit at `position`.
    public subscript(position: Int) -> IdentifyResult { results[position] }

    /// The object IDs of the hits, nearest first.
    public var objectIDs: [Int64] { results.map(\.objectID) }

    /// The identify response, shaped as ArcGIS REST's `identify`:
    /// `{"results":[{"layerId":0,"layerName":"…","objectId":…,"displayFieldName":"…",
    /// "value":"…","attributes":{…},"geometry":{…}}]}`.
    ///
    /// - `displayFieldName` and `value` are empty strings when the table has no display field;
    ///   `value` is ``SieveFeatures/FeatureTable/displayText(of:dateOnly:)`` of the display field's
    ///   value.
    /// - `attributes` holds every field as Esri JSON writes it (dates as epoch milliseconds,
    ///   NULL as `null`).
    /// - `geometry` is present only for results that carry one (the parameters asked for
    ///   geometries), as Esri JSON with the table's `spatialReference`.
    public func json(layerID: Int = 0, layerName: String) -> String {
        var bytes: [UInt8] = []
        writeJSON(layerID: layerID, layerName: layerName, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``json(layerID:layerName:)`` to `bytes` as UTF-8.
    public func writeJSON(layerID: Int = 0, layerName: String, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"results":["#.utf8)
        writeResultObjects(layerID: layerID, layerName: layerName, into: &bytes)
        bytes.append(contentsOf: "]}".utf8)
    }

    /// Appends the result objects of ``json(layerID:layerName:)`` — the members of its
    /// `results` array, separated by commas, without the brackets — to `bytes`: how a response
    /// over several layers lists each layer's hits in one array.
    public func writeResultObjects(layerID: Int, layerName: String, into bytes: inout [UInt8]) {
        let schema = table.schema
        let cells = schema.fields.indices.map { CellWriter(table.columns[$0], field: schema.fields[$0], datesAsText: false) }
        var layerPrefix = Array(#"{"layerId":"#.utf8)
        JSONOutput.appendInteger(Int64(layerID), to: &layerPrefix)
        layerPrefix.append(contentsOf: #","layerName":"#.utf8)
        JSONWriter.writeString(layerName, into: &layerPrefix)
        for (i, result) in results.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: layerPrefix)
            bytes.append(contentsOf: #","objectId":"#.utf8)
            JSONOutput.appendInteger(result.objectID, to: &bytes)
            bytes.append(contentsOf: #","displayFieldName":"#.utf8)
            JSONWriter.writeString(result.displayFieldName ?? "", into: &bytes)
            bytes.append(contentsOf: #","value":"#.utf8)
            JSONWriter.writeString(result.displayValue, into: &bytes)
            bytes.append(contentsOf: #","attributes":{"#.utf8)
            for (j, cell) in cells.enumerated() {
                if j > 0 { bytes.append(UInt8(ascii: ",")) }
                cell.write(row: result.row, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
            if let geometry = result.geometry,
                let value = try? geometry.esriJSONValue(spatialReference: table.spatialReference)
            {
                bytes.append(contentsOf: #","geometry":"#.utf8)
                JSONWriter.write(value, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
