import Foundation
import GeoSieve
import Testing

/// The one error model: every public error type of the library is a `GeoSieveError` whose
/// category (and so HTTP status, ArcGIS code and exit status) follows from its kind, with the
/// location in the input where the error knows one; kinds match in `catch` clauses through the
/// shared `~=`; and the Esri JSON writers write a geometry collection in its Esri form.
@Suite struct ErrorModelTests {
    /// The error `body` throws.
    static func error(_ body: () throws -> Void) -> (any Error)? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - The table

    @Test func theTableGivesEachCategoryItsStatuses() {
        let rows: [(ErrorCategory, Int, Int, Int32)] = [
            (.invalidRequest, 400, 400, 2), (.notFound, 404, 404, 2), (.unsupported, 400, 400, 2), (.tooLarge, 413, 413, 2),
            (.conflict, 409, 409, 2), (.unauthorized, 401, 498, 2), (.forbidden, 403, 403, 2), (.unreadable, 500, 500, 1),
            (.unavailable, 502, 500, 1), (.timedOut, 503, 503, 1), (.internal, 500, 500, 70),
        ]
        for (category, http, arcGIS, exit) in rows {
            #expect(category.httpStatus == http, "\(category)")
            #expect(category.arcGISCode == arcGIS, "\(category)")
            #expect(category.exitStatus == exit, "\(category)")
        }
    }

    @Test func errorsWithoutACategoryAreTheCallers() {
        #expect(ErrorCategory.of(CocoaError(.fileReadNoSuchFile)) == .invalidRequest)
        #expect(ErrorCategory.of(CancellationError()) == .timedOut)
        #expect(ErrorCategory.of(FeatureTableError(.unreadableFile, "x")) == .unreadable)
    }

    @Test func locationsDescribeThemselves() {
        #expect(InputLocation(input: "where", line: 1, column: 9).description == "where at 1:9")
        #expect(InputLocation(column: 12, path: "rings[0]").description == "at character 12 (rings[0])")
        #expect(InputLocation(input: "a.geojson", line: 3, featureIndex: 2).description == "a.geojson at line 3 in features[2]")
        #expect(InputLocation().description == "")
    }

    // MARK: - Each type's categories, on real errors where the library makes them

    @Test func whereClauseErrorsAreInvalidRequestsAtTheirPosition() {
        let error = Self.error { _ = try WhereClause.parse("pop > ") } as? WhereClauseError
        #expect(error?.category == .invalidRequest)
        #expect(error?.inputLocation?.input == "where")
        #expect(error?.inputLocation?.line == 1)
        #expect(error?.inputLocation?.column == error?.location?.column)
        // The printed text is unchanged.
        #expect(error.map { "\($0)" }?.hasPrefix("where clause error at 1:") == true)
        #expect(WhereClauseError(.unknownField, "x", sql: "", range: nil).inputLocation == nil)
        #expect(WhereClauseError(.nestingTooDeep, "x", sql: "", range: nil).category == .invalidRequest)
    }

    @Test func postgreSQLRenderingErrorsAreUnsupported() {
        let error = Self.error { _ = try postgreSQLIdentifier("") } as? PostgreSQLRenderingError
        #expect(error?.category == .unsupported)
        #expect(error.map { "\($0)" }?.hasPrefix("cannot render for PostgreSQL: ") == true)
    }

    @Test func cql2ErrorsAreInvalidRequestsAtTheirPosition() {
        let text = Self.error { _ = try CQL2Text.parse("a = ") } as? CQL2Error
        #expect(text?.category == .invalidRequest)
        #expect(text?.inputLocation?.input == "cql2-text")
        #expect(text?.inputLocation?.line == 1)
        let json = Self.error { _ = try CQL2JSON.parse(#"{"op":"s_near","args":[]}"#) } as? CQL2Error
        #expect(json?.category == .invalidRequest)
        #expect(json?.inputLocation?.input == "cql2-json")
        #expect(json?.inputLocation?.path != nil)
        // Found after reading (binding): no position.
        #expect(CQL2Error(.text, "x", line: 0, column: 0, offset: 0).inputLocation == nil)
    }

    @Test func featureTableErrorsByKind() {
        let json = Self.error { _ = try FeatureTable.load(geoJSON: "{\n  \"type\": ") } as? FeatureTableError
        #expect(json?.kind == .invalidJSON)
        #expect(json?.category == .invalidRequest)
        #expect(json?.inputLocation?.line != nil || json?.inputLocation?.column != nil)
        let unreadable = Self.error { _ = try FeatureTable.load(contentsOf: URL(fileURLWithPath: "/no/such/file.geojson")) }
        #expect(ErrorCategory.of(unreadable ?? CancellationError()) == .unreadable)
        let duplicate = Self.error {
            _ = try FeatureTable.load(
                esriJSON: #"{"objectIdFieldName":"OBJECTID","fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],"features":[{"attributes":{"OBJECTID":1}},{"attributes":{"OBJECTID":1}}]}"#)
        } as? FeatureTableError
        #expect(duplicate?.kind == .duplicateObjectID)
        #expect(duplicate?.category == .conflict)
        #expect(duplicate?.inputLocation?.featureIndex == 1)
        let expected: [(FeatureTableError.Kind, ErrorCategory)] = [
            (.invalidGeoJSON, .invalidRequest), (.invalidEsriJSON, .invalidRequest), (.invalidGeometry, .invalidRequest),
            (.mixedGeometryTypes, .invalidRequest), (.invalidSchema, .invalidRequest), (.conversionFailed, .invalidRequest),
            (.invalidTable, .invalidRequest), (.invalidQuery, .invalidRequest), (.invalidEdits, .invalidRequest),
            (.unsupportedSpatialReference, .unsupported), (.inputTooLarge, .tooLarge), (.tooManyFields, .tooLarge),
            (.cancelled, .timedOut), (.unreadableFile, .unreadable), (.duplicateObjectID, .conflict),
        ]
        for (kind, category) in expected {
            #expect(FeatureTableError(kind, "x").category == category, "\(kind)")
        }
        #expect(FeatureTableError(.invalidJSON, "x").inputLocation == nil)
        #expect(FeatureTableError(.invalidJSON, "x", position: 7).inputLocation == InputLocation(column: 7))
    }

    @Test func editErrorsByKind() throws {
        let table = try EditableFeatureTable(
            FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":{"type":"Point","coordinates":[1,2]}}]}"#))
        let missing = table.deleteFeatures(objectIDs: [99]).first?.error
        #expect(missing?.kind == .missingObjectID)
        #expect(missing?.category == .notFound)
        let expected: [(EditError.Kind, ErrorCategory)] = [
            (.unknownField, .invalidRequest), (.wrongType, .invalidRequest), (.invalidGeometry, .invalidRequest),
            (.nullNotAllowed, .invalidRequest), (.repeatedObjectID, .invalidRequest), (.missingObjectID, .notFound),
            (.missingAttachment, .notFound), (.notAllowed, .forbidden), (.notOwner, .forbidden), (.rolledBack, .conflict),
        ]
        for (kind, category) in expected {
            #expect(EditError(kind, "x").category == category, "\(kind)")
        }
        // The printed text is unchanged: `kind: message`.
        #expect("\(EditError(.notOwner, "feature 3 belongs to ann"))" == "not owner: feature 3 belongs to ann")
    }

    @Test func geometryErrorsAreInvalidRequestsAtTheirPosition() {
        let error = Self.error { _ = try Geometry(wkt: "POINT (1 2") } as? GeometryError
        #expect(error?.category == .invalidRequest)
        #expect(error?.inputLocation?.column == error?.position)
        #expect(GeometryError(.unsupportedProjection, "x").category == .unsupported)
        #expect(GeometryError(.invalidGeoJSON, "x", path: "coordinates[0]").inputLocation?.path == "coordinates[0]")
        #expect(GeometryError(.invalidCoordinates, "x").inputLocation == nil)
    }

    @Test func geosErrorsByKind() {
        #expect(GEOSError(.geosException, "x", function: "GEOSRelate_r").category == .invalidRequest)
        #expect(GEOSError(.invalidPattern, "x").category == .invalidRequest)
        #expect(GEOSError(.tooComplex, "x").category == .tooLarge)
        #expect(GEOSError(.initialization, "x").category == .internal)
        #expect("\(GEOSError(.geosException, "bad", function: "GEOSRelate_r"))" == "GEOS exception in GEOSRelate_r: bad")
        #expect("\(GEOSError(.invalidPattern, "bad"))" == "invalid DE-9IM pattern: bad")
    }

    @Test func projectionErrorsByKind() {
        let unknown = Self.error { _ = try Projector(from: SpatialReference(wkid: 999_999), to: .wgs84) } as? ProjectionError
        #expect(unknown?.kind == .unknownSpatialReference)
        #expect(unknown?.category == .invalidRequest)
        #expect(ProjectionError(.unsupportedSpatialReference, "x").category == .unsupported)
        #expect(ProjectionError(.noTransformation, "x").category == .unsupported)
        #expect(ProjectionError(.transformationFailed, "x").category == .invalidRequest)
        #expect(ProjectionError(.tooComplex, "x").category == .tooLarge)
        #expect(ProjectionError(.initialization, "x").category == .internal)
        #expect("\(ProjectionError(.transformationFailed, "cannot project"))" == "transformation failed: cannot project")
    }

    @Test func geoPackageErrorsByKind() {
        let missing = Self.error { _ = try GeoPackage.read(at: "/no/such/file.gpkg") } as? GeoPackageError
        #expect(missing?.kind == .cannotOpen)
        #expect(missing?.category == .unreadable)
        #expect(missing?.inputLocation?.input?.hasSuffix("file.gpkg") == true)
        let expected: [(GeoPackageError.Kind, ErrorCategory)] = [
            (.cannotOpen, .unreadable), (.writeFailed, .unreadable), (.sqlite, .unreadable), (.notAGeoPackage, .invalidRequest),
            (.layerNotFound, .notFound), (.unsupportedField, .unsupported), (.invalidValue, .invalidRequest),
            (.invalidGeometry, .invalidRequest), (.unsupportedSpatialReference, .unsupported), (.cannotWrite, .unsupported),
        ]
        for (kind, category) in expected {
            #expect(GeoPackageError(kind, "x").category == category, "\(kind)")
        }
        #expect(GeoPackageError(.layerNotFound, "x", path: "a.gpkg", layer: "roads").inputLocation?.input == "a.gpkg:roads")
    }

    @Test func rendererAndMapErrorsByKind() {
        let json = Self.error { _ = try Renderer(esriJSON: "{") } as? RendererError
        #expect(json?.kind == .invalidJSON)
        #expect(json?.category == .invalidRequest)
        let type = Self.error { _ = try Renderer(esriJSON: #"{"type":"heatmap"}"#) } as? RendererError
        #expect(type?.category == .unsupported)
        #expect(RendererError(.unsupportedSymbolType, "x").category == .unsupported)
        #expect(RendererError(.unknownField, "x", path: "field1").inputLocation?.path == "field1")
        let extent = Self.error { _ = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 10), width: 800, height: 600) }
        #expect((extent as? SVGMapError)?.kind == .invalidExtent)
        #expect(ErrorCategory.of(extent ?? CancellationError()) == .invalidRequest)
        #expect((extent as? SVGMapError).map { "\($0)" }?.hasPrefix("invalid extent: ") == true)
    }

    @Test func queryErrorsKeepTheCategoryOfTheStageThatFailed() {
        #expect(QueryError(wrapping: FeatureTableError(.cancelled, "x")).category == .timedOut)
        #expect(QueryError(wrapping: ProjectionError(.noTransformation, "x")).category == .unsupported)
        #expect(QueryError(wrapping: WhereClauseError(.unknownField, "x", sql: "", range: nil)).category == .invalidRequest)
    }

    // MARK: - The shared kind matching

    @Test func kindsMatchInCatchClauses() {
        func kind(_ error: any Error) -> String {
            switch error {
            case FeatureTableError.duplicateObjectID: "duplicate"
            case GeometryError.invalidWKT: "wkt"
            case WhereClauseError.syntaxError: "syntax"
            case GeoPackageError.layerNotFound: "layer"
            case EditError.Kind.notOwner: "owner"
            case GEOSError.Kind.tooComplex: "complex"
            case ProjectionError.Kind.noTransformation: "transformation"
            default: "other"
            }
        }
        #expect(kind(FeatureTableError(.duplicateObjectID, "x")) == "duplicate")
        #expect(kind(FeatureTableError(.invalidJSON, "x")) == "other")
        #expect(kind(GeometryError(.invalidWKT, "x")) == "wkt")
        #expect(kind(WhereClauseError(.syntaxError, "x", sql: "", range: nil)) == "syntax")
        #expect(kind(GeoPackageError(.layerNotFound, "x")) == "layer")
        #expect(kind(EditError(.notOwner, "x")) == "owner")
        #expect(kind(GEOSError(.tooComplex, "x")) == "complex")
        #expect(kind(ProjectionError(.noTransformation, "x")) == "transformation")
        // Typed throws: the error is not an existential.
        do throws(WhereClauseError) {
            _ = try WhereClause.parse("'open")
            Issue.record("no error")
        } catch WhereClauseError.unterminatedString {
        } catch {
            Issue.record("\(error)")
        }
    }

    // MARK: - Writers: a geometry collection in Esri JSON

    /// The Esri JSON `geometry` of a one-feature table holding `geometry` (a table built in code
    /// holds any geometry; the loaders refuse collections).
    static func esriGeometry(_ geometry: Geometry, type: GeometryType) throws -> [String: Any]? {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: type, spatialReference: .wgs84)
        let table = try FeatureTable(schema: schema, columns: [.integer(Int64Column(values: [1]))], geometries: [geometry])
        let text = try table.queryFeatures(QueryParameters()).esriJSON
        let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let feature = (root?["features"] as? [[String: Any]])?.first
        return feature?["geometry"] as? [String: Any]
    }

    @Test func esriJSONWritesACollectionOfOneDimensionAsItsMultipartGeometry() throws {
        let lines = try Geometry(wkt: "GEOMETRYCOLLECTION (LINESTRING (0 0, 1 1), MULTILINESTRING ((2 2, 3 3), (4 4, 5 5)))")
        #expect((try Self.esriGeometry(lines, type: .polyline)?["paths"] as? [[[Double]]])?.count == 3)
        let points = try Geometry(wkt: "GEOMETRYCOLLECTION (POINT (1 2), MULTIPOINT ((3 4), (5 6)), GEOMETRYCOLLECTION (POINT (7 8)))")
        #expect((try Self.esriGeometry(points, type: .multipoint)?["points"] as? [[Double]]) == [[1, 2], [3, 4], [5, 6], [7, 8]])
        let areas = try Geometry(wkt: "GEOMETRYCOLLECTION (POLYGON ((0 0, 0 1, 1 1, 1 0, 0 0)), POLYGON ((5 5, 5 6, 6 6, 6 5, 5 5)))")
        #expect((try Self.esriGeometry(areas, type: .polygon)?["rings"] as? [[[Double]]])?.count == 2)
    }

    @Test func esriJSONWritesAMixedCollectionAsItsHighestDimensionAndAnEmptyOneAsNoGeometry() throws {
        let mixed = try Geometry(wkt: "GEOMETRYCOLLECTION (POINT (9 9), POLYGON ((0 0, 0 1, 1 1, 1 0, 0 0)), LINESTRING (0 0, 2 2))")
        let geometry = try Self.esriGeometry(mixed, type: .polygon)
        #expect((geometry?["rings"] as? [[[Double]]])?.count == 1)
        #expect(geometry?["points"] == nil && geometry?["paths"] == nil)
        #expect(try Self.esriGeometry(.collection(GeometryCollection([])), type: .polygon) == nil)
    }

    @Test func applyEditsJSONWritesACollectionInItsEsriForm() throws {
        let lines = try Geometry(wkt: "GEOMETRYCOLLECTION (LINESTRING (0 0, 1 1), LINESTRING (2 2, 3 3))")
        let request = ApplyEditsRequest(adds: [FeatureEdit(geometry: lines, spatialReference: .wgs84)])
        let root = try JSONSerialization.jsonObject(with: Data(request.json.utf8)) as? [String: Any]
        let geometry = ((root?["adds"] as? [[String: Any]])?.first)?["geometry"] as? [String: Any]
        #expect((geometry?["paths"] as? [[[Double]]])?.count == 2)
        #expect((geometry?["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
    }
}
