import Foundation
import HTTPTypes
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGEOS
import SieveGeometry
import SieveProjection
import SieveSQL
import Testing

@testable import SieveServer
import SieveTestSupport

/// The server answers every failure with its category's HTTP status and ArcGIS code
/// (`ErrorCategory.httpStatus`, `ErrorCategory.arcGISCode`): one real failure per category
/// through the routes where a request can produce one, and the mapping of a real engine error of
/// each category (`ServerRequestError(_:fallback:)`, `ServerRequestError.catching`).
///
/// ArcGIS REST answers its errors with HTTP 200 and the code in the document (except 413, 414
/// and 503, which come before the route); OGC API answers with the HTTP status.
@Suite(.tags(.network)) struct ErrorStatusTests {
    static let layer = "/arcgis/rest/services/countries/FeatureServer/0"

    /// `error` as the server answers it: HTTP status, ArcGIS code, OGC code.
    static func answer(_ error: any Error, fallback: ServerRequestError.Kind = .badRequest) -> (status: Int, arcGIS: Int?, ogc: String?) {
        let failure = ServerRequestError(error, fallback: fallback)
        let arcGIS = (try? JSONSerialization.jsonObject(with: Data(failure.arcGISJSON.utf8))) as? [String: Any]
        let ogc = (try? JSONSerialization.jsonObject(with: Data(failure.ogcJSON.utf8))) as? [String: Any]
        return (failure.status, (arcGIS?["error"] as? [String: Any])?["code"] as? Int, ogc?["code"] as? String)
    }

    // MARK: - The kinds and the categories

    @Test func kindsAndCategoriesMapBothWays() {
        let categories: [ErrorCategory] = [
            .invalidRequest, .notFound, .unsupported, .tooLarge, .conflict, .unauthorized, .forbidden, .unreadable, .unavailable,
            .timedOut, .internal,
        ]
        for category in categories {
            let kind = ServerRequestError.Kind(category)
            #expect(kind.rawValue == category.httpStatus, "\(category)")
            // Back to the category, or one of the same statuses.
            #expect(kind.category.httpStatus == category.httpStatus, "\(category)")
        }
        let kinds: [ServerRequestError.Kind] = [
            .badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .notAcceptable, .contentTooLarge, .conflict,
            .uriTooLong, .internalError, .badGateway, .serviceUnavailable,
        ]
        for kind in kinds where ![.methodNotAllowed, .notAcceptable, .uriTooLong].contains(kind) {
            #expect(ServerRequestError.Kind(kind.category) == kind, "\(kind)")
        }
        #expect(ServerRequestError.Kind.methodNotAllowed.category == .unsupported)
        #expect(ServerRequestError.Kind.uriTooLong.category == .tooLarge)
        // Statuses narrower than their category keep their own ArcGIS code.
        #expect(Self.answer(ServerRequestError(.methodNotAllowed, "x")).arcGIS == 405)
        #expect(Self.answer(ServerRequestError(.uriTooLong, "x")).arcGIS == 414)
    }

    @Test func anErrorWithoutACategoryIsTheFallbacks() {
        #expect(Self.answer(CocoaError(.fileReadUnknown)).status == 400)
        #expect(Self.answer(CocoaError(.fileReadUnknown), fallback: .internalError).status == 500)
        #expect(Self.answer(CancellationError()).status == 503)
        let failure = ServerRequestError(ServerRequestError(.forbidden, "no"), fallback: .internalError)
        #expect(failure.kind == .forbidden)
    }

    @Test func catchingKeepsTheCallersMessageForTheExpectedKindOnly() {
        let message = "Cannot perform query. Invalid query parameters."
        let bad = #expect(throws: ServerRequestError.self) {
            try ServerRequestError.catching(.badRequest, message: message) { throw FeatureTableError(.invalidQuery, "no field x") }
        }
        #expect(bad?.message == message)
        #expect(bad?.details == ["invalid query: no field x"])
        let late = #expect(throws: ServerRequestError.self) {
            try ServerRequestError.catching(.badRequest, message: message) { throw FeatureTableError(.cancelled, "cancelled") }
        }
        #expect(late?.kind == .serviceUnavailable)
        #expect(late?.message == "cancelled: cancelled")
        // Work that reads nothing of the request: an error blaming input is the server's.
        let document = #expect(throws: ServerRequestError.self) {
            try ServerRequestError.catching(.internalError) { throw ProjectionError(.transformationFailed, "x") }
        }
        #expect(document?.kind == .internalError)
        let database = #expect(throws: ServerRequestError.self) {
            try ServerRequestError.catching(.internalError) { throw QueryError(.source, "no answer", category: .unavailable) }
        }
        #expect(database?.kind == .badGateway)
    }

    // MARK: - One category at a time

    @Test func invalidRequestIs400() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            let arcGIS = try await client.get("\(Self.layer)/query?where=\(encoded("popu > 1"))&f=json")
            #expect(arcGIS.status == 200)
            #expect(arcGIS.arcGISErrorCode == 400)
            let ogc = try await client.get("/ogc/collections/countries/items?filter=\(encoded("popu > 1"))")
            #expect(ogc.status == 400)
        }
        #expect(Self.answer(WhereClauseError(.unknownField, "unknown field", sql: "popu > 1", range: nil)) == (400, 400, "InvalidParameterValue"))
    }

    @Test func notFoundIs404() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            #expect(try await client.get("/arcgis/rest/services/nope/FeatureServer/0?f=json").arcGISErrorCode == 404)
            #expect(try await client.get("/ogc/collections/nope").status == 404)
        }
        #expect(Self.answer(EditError(.missingObjectID, "no feature 9")) == (404, 404, "NotFound"))
    }

    @Test func unsupportedIs400() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            let reply = try await client.get("\(Self.layer)/query?where=1%3D1&outSR=5703&returnExtentOnly=true&f=json")
            #expect(reply.arcGISErrorCode == 400)
        }
        #expect(Self.answer(ProjectionError(.unsupportedSpatialReference, "a vertical reference")) == (400, 400, "InvalidParameterValue"))
    }

    @Test func tooLargeIs413() async throws {
        let server = try TestServer.make(ServerConfiguration(maxBodyBytes: 1_024))
        try await TestServer.withClient(server) { client async throws in
            let body = "where=" + String(repeating: "1", count: 5_000)
            let arcGIS = try await client.post("\(Self.layer)/query", form: body)
            #expect(arcGIS.status == 413)
            #expect(arcGIS.arcGISErrorCode == 413)
        }
        #expect(Self.answer(FeatureTableError(.inputTooLarge, "over the limit")) == (413, 413, "ContentTooLarge"))
    }

    @Test func conflictIs409() {
        // No route answers a conflict on its own: applyEdits reports a rolled-back edit in its
        // results (code 1003), OGC API transactions report refused edits as 400.
        #expect(Self.answer(EditError(.rolledBack, "another edit of the batch failed")) == (409, 409, "Conflict"))
        #expect(Self.answer(FeatureTableError(.duplicateObjectID, "features[0] and features[1]")) == (409, 409, "Conflict"))
    }

    @Test func unauthorizedIs401() async throws {
        let server = try TestServer.make(ServerConfiguration(token: "s3cret", tokenRequiredForRead: true))
        try await TestServer.withClient(server) { client async throws in
            #expect(try await client.get("\(Self.layer)/query?where=1%3D1&f=json").arcGISErrorCode == 499)
            #expect(try await client.get("\(Self.layer)/query?where=1%3D1&f=json&token=wrong").arcGISErrorCode == 498)
            #expect(try await client.get("/ogc/collections/countries/items").status == 401)
        }
        #expect(ErrorCategory.unauthorized.arcGISCode == 498)
    }

    @Test func forbiddenIs403() async throws {
        try await TestServer.withClient(try TestServer.make()) { client async throws in
            #expect(try await client.post("\(Self.layer)/applyEdits", form: "deletes=1").arcGISErrorCode == 403)
            // A read-only OGC API has no DELETE: 405.
            let ogc = try await client.send("/ogc/collections/countries/items/1", method: .delete)
            #expect(ogc.status == 405)
        }
        #expect(Self.answer(EditError(.notOwner, "feature 3 belongs to ann")) == (403, 403, "Forbidden"))
    }

    @Test func unreadableIs500() async throws {
        // Edits that cannot be written into their file.
        let table = try EditableFeatureTable(
            FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"n":1},"geometry":null}]}"#))
        let served = try ServedTable(id: "places", table: table) { _, _, _ in
            throw FeatureTableError(.unreadableFile, "cannot write places.geojson: permission denied")
        }
        let server = try GeoSieveServer(catalog: ServedCatalog([served]), configuration: ServerConfiguration(allowEdits: true))
        try await TestServer.withClient(server) { client async throws in
            let reply = try await client.post("/arcgis/rest/services/places/FeatureServer/0/applyEdits", form: "deletes=1")
            #expect(reply.arcGISErrorCode == 500)
            let ogc = try await client.send("/ogc/collections/places/items/1", method: .delete)
            #expect(ogc.status == 500)
        }
        #expect(Self.answer(FeatureTableError(.unreadableFile, "cannot read x")) == (500, 500, "ServerError"))
    }

    @Test func unavailableIs502WithArcGISCode500() {
        // What a database or service behind a source answers with when it fails (a served
        // table reads its source when the server starts, so no route meets one yet).
        let failure = QueryError(.source, "cannot connect to PostgreSQL at 127.0.0.1:1", category: .unavailable)
        #expect(Self.answer(failure) == (502, 500, "BadGateway"))
        #expect(ServerRequestError(failure).headers.isEmpty)
    }

    @Test func timedOutIs503() throws {
        let countries = try FeatureTable.load(contentsOf: fixturesDirectory.appendingPathComponent("naturalearth_lowres.geojson"))
        let cancellation = QueryCancellation()
        cancellation.cancel()
        // Touches: the exact spatial test, which checks the cancellation, runs feature by feature.
        let query = QueryParameters(geometry: .envelope(Envelope(xmin: -10, ymin: -10, xmax: 10, ymax: 10)), spatialRelationship: .touches)
        let failure = #expect(throws: ServerRequestError.self) {
            try ServerRequestError.catching(.badRequest, message: "Cannot perform query. Invalid query parameters.") {
                try QueryCancellation.$current.withValue(cancellation) { _ = try countries.queryFeatures(query) }
            }
        }
        #expect(failure?.status == 503)
        #expect(failure?.headers.first?.name == "Retry-After")
        if let failure { #expect(Self.answer(failure) == (503, 503, "ServiceUnavailable")) }
    }

    @Test func internalIs500() {
        #expect(Self.answer(GEOSError(.initialization, "GEOS_init_r failed")) == (500, 500, "ServerError"))
        #expect(Self.answer(ProjectionError(.initialization, "no PROJ context")) == (500, 500, "ServerError"))
    }
}
