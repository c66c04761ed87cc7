import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveJSON

/// OGC API – Features Part 4 (create, replace, delete), with ``ServerConfiguration/allowEdits``:
///
/// | request | effect | answer |
/// |---|---|---|
/// | `POST /collections/{id}/items`, a GeoJSON Feature | adds it | 201, `Location` of the new item |
/// | `PUT /collections/{id}/items/{featureId}`, a GeoJSON Feature | replaces the feature: properties it does not give become null | 204 |
/// | `DELETE /collections/{id}/items/{featureId}` | deletes it | 204 |
///
/// Geometries are CRS84 (longitude, latitude). An edit the table refuses is answered with the
/// status of its error's category and the reason: 400 for a wrong type or an invalid geometry,
/// 403 for an edit the table's capabilities or ownership rules forbid; a missing feature 404.
/// Each edit is saved before it is answered.
enum OGCTransactions {
    /// The conformance class, declared when edits are allowed.
    static let conformance = "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete"

    /// `POST …/items`.
    static func create(_ body: [UInt8], served: ServedTable, base: String) async throws(ServerRequestError) -> ServiceResponse {
        let edit = try feature(body, schema: served.layer.schema)
        try served.checkVisibleFields([edit])
        let result = try await served.applyEdits(ApplyEditsRequest(adds: [edit]), rollbackOnFailure: true).addResults
        guard let first = result.first else { throw ServerRequestError(.internalError, "the table answered no result") }
        if let error = first.error { throw ServerRequestError(ServerRequestError.Kind(error.category), "the feature was not added: \(error)") }
        let location = base + "/ogc/collections/" + served.id + "/items/" + String(first.objectID)
        return ServiceResponse(status: 201, contentType: ServiceResponse.jsonType, headers: [("Location", location)], body: [])
    }

    /// `PUT …/items/{featureId}`.
    static func replace(_ featureID: String, _ body: [UInt8], served: ServedTable) async throws(ServerRequestError) -> ServiceResponse {
        let schema = served.layer.schema
        let id = try await existing(featureID, served: served)
        var edit = try feature(body, schema: schema)
        try served.checkVisibleFields([edit])
        edit.objectID = id
        // Replace: every editable field the body does not give becomes null (hidden fields
        // keep their values: clients do not see them).
        for field in served.visibleSchema.fields where field.type != .oid && field.type != .globalID {
            if !edit.attributes.keys.contains(where: { $0.lowercased() == field.name.lowercased() }) { edit.attributes[field.name] = .null }
        }
        let replacement = edit
        let result = try await served.applyEdits(ApplyEditsRequest(updates: [replacement]), rollbackOnFailure: true).updateResults
        if let error = result.first?.error { throw ServerRequestError(ServerRequestError.Kind(error.category), "feature \(id) was not replaced: \(error)") }
        return ServiceResponse(status: 204, contentType: ServiceResponse.jsonType, body: [])
    }

    /// `DELETE …/items/{featureId}`.
    static func delete(_ featureID: String, served: ServedTable) async throws(ServerRequestError) -> ServiceResponse {
        let id = try await existing(featureID, served: served)
        let result = try await served.applyEdits(ApplyEditsRequest(deletes: [id]), rollbackOnFailure: true).deleteResults
        if let error = result.first?.error { throw ServerRequestError(ServerRequestError.Kind(error.category), "feature \(id) was not deleted: \(error)") }
        return ServiceResponse(status: 204, contentType: ServiceResponse.jsonType, body: [])
    }

    /// The object ID of `featureID`, a feature of the collection.
    static func existing(_ featureID: String, served: ServedTable) async throws(ServerRequestError) -> Int64 {
        guard let id = Int64(featureID), try await served.containsFeature(id) else {
            throw ServerRequestError(.notFound, "feature \(RequestParameters.quoted(featureID)) does not exist in collection \(RequestParameters.quoted(served.id))")
        }
        return id
    }

    /// The GeoJSON Feature of a request body, without its object ID.
    static func feature(_ body: [UInt8], schema: Schema) throws(ServerRequestError) -> FeatureEdit {
        guard let text = String(validating: body, as: UTF8.self) else { throw ServerRequestError(.badRequest, "the body is not UTF-8 text") }
        let value: JSONValue
        do {
            value = try JSONReader.parse(text)
        } catch {
            throw ServerRequestError(.badRequest, "the body is not JSON: \(error)")
        }
        guard value["type"]?.stringValue == "Feature" else { throw ServerRequestError(.badRequest, "the body must be a GeoJSON Feature") }
        return try ServerRequestError.catching(.badRequest) {
            let request = try ApplyEditsRequest(json: "{\"adds\":[" + text + "]}", schema: schema)
            guard var edit = request.adds.first else { throw ServerRequestError(.badRequest, "the body holds no feature") }
            edit.attributes = edit.attributes.filter { schema.index(ofField: $0.key) != schema.objectIdFieldIndex }
            return edit
        }
    }
}
