import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveJSON

/// The ArcGIS REST edit operations of a layer (and the service-level `applyEdits`), allowed only
/// with ``ServerConfiguration/allowEdits`` and, when a token is set, with the token.
///
/// | operation | parameters | answer |
/// |---|---|---|
/// | `applyEdits` (layer) | `adds`, `updates` (features), `deletes` (IDs), `rollbackOnFailure` | `{"addResults","updateResults","deleteResults"}` |
/// | `applyEdits` (service) | `edits=[{"id":0,"adds":…,"updates":…,"deletes":…}]`, `rollbackOnFailure` | `[{"id":0,"addResults",…}]` |
/// | `addFeatures` | `features`, `rollbackOnFailure` | `{"addResults":[…]}` |
/// | `updateFeatures` | `features`, `rollbackOnFailure` | `{"updateResults":[…]}` |
/// | `deleteFeatures` | `objectIds`, `where`, `geometry` (as the query reads them) | `{"deleteResults":[…]}` |
///
/// Features are Esri JSON (or GeoJSON) features; `rollbackOnFailure` defaults to `true` (one
/// failed edit fails the batch). Each batch is saved before it is answered.
enum ArcGISEdits {
    /// The operation names, as the path's last component.
    enum Operation: String, CaseIterable {
        case applyEdits, addFeatures, updateFeatures, deleteFeatures
    }

    /// Runs `operation` on `served`.
    static func run(_ operation: Operation, _ parameters: RequestParameters, on served: ServedTable) async throws(ServerRequestError)
        -> ServiceResponse
    {
        try served.requireEditing()
        let schema = served.layer.schema
        let rollback = try ArcGISQuery.flag(parameters, "rollbackOnFailure", default: true)
        /// Applies `request`, once it names no hidden field.
        func apply(_ request: ApplyEditsRequest, rollback: Bool, on served: ServedTable) async throws(ServerRequestError) -> ApplyEditsResult {
            try served.checkVisibleFields(request.adds + request.updates)
            return try await Self.apply(request, rollback: rollback, on: served)
        }
        switch operation {
        case .applyEdits:
            var request = ApplyEditsRequest()
            for key in ["adds", "updates", "deletes"] {
                guard let text = parameters.nonEmpty(key) else { continue }
                let part = try edits(key, text, schema: schema)
                request.adds += part.adds
                request.updates += part.updates
                request.deletes += part.deletes
            }
            let result = try await apply(request, rollback: rollback, on: served)
            return ServiceResponse.json(text: result.json)
        case .addFeatures, .updateFeatures:
            let key = operation == .addFeatures ? "adds" : "updates"
            guard let text = parameters.nonEmpty("features") else { throw invalid("\(operation.rawValue) needs features") }
            let request = try edits(key, text, schema: schema, parameter: "features")
            let result = try await apply(request, rollback: rollback, on: served)
            let name = operation == .addFeatures ? "addResults" : "updateResults"
            let results = operation == .addFeatures ? result.addResults : result.updateResults
            return ServiceResponse.json(.object(JSONObject([(name, .array(results.map(\.jsonValue)))])))
        case .deleteFeatures:
            guard ["objectIds", "where", "geometry"].contains(where: { parameters.nonEmpty($0) != nil }) else {
                throw invalid("deleteFeatures needs objectIds, where or geometry")
            }
            var selection = try ServerRequestError.catching(.badRequest, message: "Unable to complete operation.") {
                try ArcGISQuery.selection(parameters)
            }
            try served.restrictToVisibleFields(&selection)
            let query = selection
            let answer = try await ServerRequestError.catching(.badRequest, message: "Unable to complete operation.") {
                try await served.layer.query(QueryRequest(query, answer: .objectIDs))
            }
            guard case .objectIDs(let ids, _) = answer else {
                throw ServerRequestError(.internalError, "the source answered an object-ID request in another kind")
            }
            let result = try await apply(ApplyEditsRequest(deletes: ids), rollback: rollback, on: served)
            return ServiceResponse.json(.object(JSONObject([("deleteResults", .array(result.deleteResults.map(\.jsonValue)))])))
        }
    }

    /// The service-level `applyEdits`: `edits` lists the edits of each layer, each layer at
    /// most once. With `rollbackOnFailure` (the default) every layer's edits are checked first
    /// and none is applied when one fails (each layer's answer says which edits failed, the
    /// others are rolled back); then each layer's batch is applied in turn. Layers are separate
    /// tables: an edit that passed the check can still fail if another request changed its
    /// table in between, and then the layers before it keep their edits.
    static func runService(_ parameters: RequestParameters, on service: ServedService) async throws(ServerRequestError) -> ServiceResponse {
        guard let text = parameters.nonEmpty("edits") else { throw invalid("applyEdits needs edits") }
        let rollback = try ArcGISQuery.flag(parameters, "rollbackOnFailure", default: true)
        let value: JSONValue
        do {
            value = try JSONReader.parse(text)
        } catch {
            throw invalid("edits: \(error)")
        }
        guard let layers = value.arrayValue else { throw invalid("edits must be a JSON array of {\"id\":…,\"adds\":…}") }
        var batches: [(served: ServedTable, request: ApplyEditsRequest)] = []
        for (i, layer) in layers.enumerated() {
            guard let id = layer["id"]?.numberValue?.exactInt else { throw invalid("edits[\(i)] needs the layer's id") }
            let served: ServedTable
            do {
                served = try service.layer(String(id))
            } catch {
                throw invalid("edits[\(i)]: \(error.message)")
            }
            guard !batches.contains(where: { $0.served.layerID == id }) else { throw invalid("edits lists layer \(id) more than once") }
            try served.requireEditing()
            let request = try edits(nil, JSONWriter.string(layer), schema: served.layer.schema, parameter: "edits[\(i)]")
            try served.checkVisibleFields(request.adds + request.updates)
            batches.append((served, request))
        }
        var results: [ApplyEditsResult] = []
        if rollback, batches.count > 1 {
            var checks: [ApplyEditsResult] = []
            for batch in batches { checks.append(try await batch.served.checkEdits(batch.request)) }
            if checks.contains(where: { !$0.allSucceeded }) {
                results = checks.map { $0.allSucceeded ? rolledBack($0) : $0 }
            }
        }
        if results.isEmpty {
            for batch in batches { results.append(try await apply(batch.request, rollback: rollback, on: batch.served)) }
        }
        return ServiceResponse.json(
            .array(
                zip(batches, results).map { batch, result in
                    var object = JSONObject([("id", .integer(batch.served.layerID))])
                    object.append("addResults", .array(result.addResults.map(\.jsonValue)))
                    object.append("updateResults", .array(result.updateResults.map(\.jsonValue)))
                    object.append("deleteResults", .array(result.deleteResults.map(\.jsonValue)))
                    return .object(object)
                }))
    }

    /// `result`, each edit rolled back: what a layer whose edits were valid answers when
    /// another layer's failed.
    static func rolledBack(_ result: ApplyEditsResult) -> ApplyEditsResult {
        let error = EditError.batchRolledBack
        return ApplyEditsResult(
            addResults: result.addResults.map { _ in FeatureEditResult(objectID: -1, error: error) },
            updateResults: result.updateResults.map { FeatureEditResult(objectID: $0.objectID, globalID: $0.globalID, error: error) },
            deleteResults: result.deleteResults.map { FeatureEditResult(objectID: $0.objectID, globalID: $0.globalID, error: error) })
    }

    /// Applies `request` as one batch: through the table's editor, or by the source where its
    /// features live.
    static func apply(_ request: ApplyEditsRequest, rollback: Bool, on served: ServedTable) async throws(ServerRequestError) -> ApplyEditsResult {
        try await served.applyEdits(request, rollbackOnFailure: rollback)
    }

    /// The edits of parameter `key` (`adds`, `updates` or `deletes`; `nil`: a whole
    /// `{"adds":…}` object in `text`).
    static func edits(_ key: String?, _ text: String, schema: Schema, parameter: String? = nil) throws(ServerRequestError) -> ApplyEditsRequest {
        var json = text
        if let key {
            // `deletes` may be the REST list form, 1,2,3.
            let value = key == "deletes" && !text.hasPrefix("[") ? JSONWriter.string(.string(text)) : text
            json = "{\"\(key)\":" + value + "}"
        }
        do {
            let request = try ApplyEditsRequest(json: json, schema: schema)
            // Only the member asked for: the text cannot bring others along.
            switch key {
            case "adds": return ApplyEditsRequest(adds: request.adds)
            case "updates": return ApplyEditsRequest(updates: request.updates)
            case "deletes": return ApplyEditsRequest(deletes: request.deletes)
            default: return request
            }
        } catch {
            throw invalid("\(parameter ?? key ?? "edits"): \(error.message)")
        }
    }

    /// A request ArcGIS would refuse as invalid.
    static func invalid(_ detail: String) -> ServerRequestError {
        ServerRequestError(.badRequest, "Unable to complete operation.", details: [detail])
    }
}
