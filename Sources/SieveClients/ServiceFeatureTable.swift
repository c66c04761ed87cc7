// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
import SieveBase
import SieveCQL
import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveMap
import SieveJSON

/// A feature table fed by a service — an ArcGIS feature service layer (or a map service's layer,
/// read-only) or an OGC API – Features collection — through a local cache, so that every local
/// query, identify, selection and statistic of a ``/SieveMap/FeatureLayer`` over it works on what
/// was fetched.
///
/// The cache is an ``/SieveEditing/EditableFeatureTable``: fetched features are merged in by object
/// ID (``/SieveEditing/EditableFeatureTable/mergeFromService(_:)``: updated in place, never held
/// twice), and local edits are kept apart until they are sent; they are allowed as the layer's
/// capabilities allow them (none for a map service's layer or an OGC API collection).
/// ``currentTable`` (the layer's view) is the cache's latest snapshot. The ``definitionExpression``
/// is sent with every fetch (to an OGC API server as a CQL2 filter, which is where-clause syntax
/// for the comparisons both share).
///
/// What is fetched, and when, is the ``mode``'s:
///
/// | mode | at ``load()`` | later |
/// |---|---|---|
/// | ``FeatureRequestMode/snapshot`` | every feature | nothing |
/// | ``FeatureRequestMode/onDemand(_:)`` | nothing | ``display(_:)``: the buffered extent, when the extent leaves it or the data expired |
/// | ``FeatureRequestMode/selection`` | nothing | ``selectFeatures(whereClause:envelope:)`` |
/// | ``FeatureRequestMode/manualCache`` | nothing | ``populateFromService(whereClause:envelope:clearCache:outFields:maxFeatures:)`` only |
///
/// The clock is injectable (``init(service:mode:definitionExpression:now:)``), so expiration is
/// tested without waiting.
public final class ServiceFeatureTable: Sendable {
    /// Where the features come from.
    public enum Service: Sendable {
        /// An ArcGIS feature service layer.
        case arcGIS(ArcGISLayerReader)
        /// An OGC API – Features collection.
        case ogc(OGCCollectionReader)
    }

    /// The service.
    public let service: Service
    /// What is fetched when.
    public let mode: FeatureRequestMode
    /// The where clause every fetch sends; empty for none.
    public let definitionExpression: String
    /// The clock: a monotonic time (seconds since any start).
    private let now: @Sendable () -> Duration
    private let state: Locked<State>
    /// What ``currentTable`` is before the first fetch created the cache (OGC collections,
    /// whose fields come with their features): a table without features.
    private let placeholder: FeatureTable

    private struct State {
        var cache: EditableFeatureTable?
        /// The extent fetched in on-demand mode (buffered), and when.
        var covered: Envelope?
        var fetchedAt: Duration?
        /// Requests sent by the mode's own decisions (fetches), for tests and traces.
        var fetches = 0
        /// An OGC collection's field holding feature ids that are not object IDs.
        var featureIDFieldName: String?
    }
    /// One fetch at a time: each reads with the cache's fields and merges into it.
    private let fetching = AsyncLimiter(limit: 1)

    /// A table over `service`, empty until its mode fetches.
    /// - Parameter service: The layer or collection the table reads.
    /// - Parameter mode: What is fetched when; every feature at ``load()`` by default.
    /// - Parameter definitionExpression: The where clause every fetch sends (empty for
    ///   none).
    /// - Parameter now: The clock (a monotonic time); the continuous clock by default.
    public init(
        service: Service, mode: FeatureRequestMode = .snapshot, definitionExpression: String = "",
        now: (@Sendable () -> Duration)? = nil
    ) throws {
        self.service = service
        self.mode = mode
        self.definitionExpression = definitionExpression
        if let now {
            self.now = now
        } else {
            let start = ContinuousClock.now
            self.now = { ContinuousClock.now - start }
        }
        var cache: EditableFeatureTable?
        if case .arcGIS(let reader) = service {
            cache = try EditableFeatureTable(Self.emptyTable(reader.info), options: Self.editingOptions(service))
        }
        state = Locked(State(cache: cache))
        placeholder = try FeatureTable.load(geoJSON: #"{"type":"FeatureCollection","features":[]}"#)
    }

    /// The cache's latest snapshot (an empty table before the first fetch).
    public var currentTable: FeatureTable {
        if let cache = state.withLock({ $0.cache }) { return cache.snapshot }
        return placeholder
    }

    /// The cache, once a fetch created it (an ArcGIS layer's at once).
    public var cache: EditableFeatureTable? { state.withLock { $0.cache } }

    /// How many fetches the table sent (each may be several requests: pages).
    public var fetchCount: Int { state.withLock { $0.fetches } }

    /// Loads the table as its mode says: every feature for ``FeatureRequestMode/snapshot``,
    /// nothing for the other modes.
    /// - Throws: ``ServiceError``; a failed load leaves the cache as it was.
    public func load() async throws {
        guard mode == .snapshot else { return }
        try await fetch(whereClause: nil, envelope: nil, outFields: ["*"], maxFeatures: nil, clearCache: false)
    }

    /// Tells an on-demand table the map shows `extent` (in the layer's spatial reference; CRS84
    /// for an OGC collection): it fetches the extent scaled by the buffer factor when `extent`
    /// is not inside what it fetched last, or that has expired. Other modes do nothing.
    /// - Returns: Whether it fetched.
    /// - Throws: ``ServiceError``; a failed fetch leaves the cache as it was.
    @discardableResult
    public func display(_ extent: Envelope) async throws -> Bool {
        guard case .onDemand(let options) = mode else { return false }
        let time = now()
        let (covered, fetchedAt) = state.withLock { ($0.covered, $0.fetchedAt) }
        let inside = covered.map { $0.contains(extent) } ?? false
        let expired = fetchedAt.map { at in options.expirationInterval.map { time - at >= $0 } ?? false } ?? false
        guard !inside || expired else { return false }
        let buffered = Self.scaled(extent, by: Swift.max(1, options.bufferFactor))
        try await fetch(whereClause: nil, envelope: buffered, byEnvelope: true, outFields: ["*"], maxFeatures: nil, clearCache: false)
        state.withLock {
            $0.covered = buffered
            $0.fetchedAt = time
        }
        return true
    }

    /// For an on-demand table with ``OnDemandOptions/autoRefreshOnExpiration``: refetches the
    /// extent fetched last when it has expired (a timer calls this).
    /// - Returns: Whether it fetched.
    @discardableResult
    public func refreshIfExpired() async throws -> Bool {
        guard case .onDemand(let options) = mode, options.autoRefreshOnExpiration, let interval = options.expirationInterval else { return false }
        let time = now()
        let (covered, fetchedAt) = state.withLock { ($0.covered, $0.fetchedAt) }
        guard let covered, let fetchedAt, time - fetchedAt >= interval else { return false }
        try await fetch(whereClause: nil, envelope: covered, byEnvelope: true, outFields: ["*"], maxFeatures: nil, clearCache: false)
        state.withLock { $0.fetchedAt = time }
        return true
    }

    /// For a selection-mode table: fetches the features `whereClause` (and `envelope`) select
    /// and returns their object IDs, ascending.
    /// - Throws: ``ServiceError``.
    public func selectFeatures(whereClause: String = "1=1", envelope: Envelope? = nil) async throws -> [Int64] {
        let fetched = try await fetch(whereClause: whereClause, envelope: envelope, outFields: ["*"], maxFeatures: nil, clearCache: false)
        return try fetched.queryObjectIDs(QueryParameters())
    }

    /// Fills the cache from the service (the manual-cache mode's only way; allowed in every
    /// mode): the features `whereClause` (and `envelope`) select, at most `maxFeatures`, with
    /// `outFields`; with `clearCache`, the cache holds only them afterwards.
    /// - Returns: How many features came.
    /// - Throws: ``ServiceError``; a failed fetch leaves the cache as it was.
    @discardableResult
    public func populateFromService(
        whereClause: String = "1=1", envelope: Envelope? = nil, clearCache: Bool = false, outFields: [String] = ["*"],
        maxFeatures: Int? = nil
    ) async throws -> Int {
        try await fetch(whereClause: whereClause, envelope: envelope, outFields: outFields, maxFeatures: maxFeatures, clearCache: clearCache).count
    }

    // MARK: - Sending local edits

    /// Sends the cache's local edits to an ArcGIS layer with `applyEdits` (rollbackOnFailure:
    /// all or nothing) and records the answer: added features move to the object IDs the
    /// service gave them, and nothing sent is pending any more (an edit made while the request
    /// was on its way stays pending). Nothing pending: no request.
    /// - Returns: What was sent: the added features' local and service object IDs, the updated
    ///   and deleted object IDs.
    /// - Throws: ``ServiceError``: ``ServiceError/Kind/unsupported`` for an OGC API collection;
    ///   ``ServiceError/Kind/serviceError`` naming each edit the service refused (the local
    ///   edits stay pending, as the service applied none).
    @discardableResult
    public func applyEdits() async throws -> SentEdits {
        guard case .arcGIS(let reader) = service else {
            throw ServiceError(.unsupported, "OGC API collections are read here, not edited", url: Self.url(of: service))
        }
        guard reader.info.serviceKind == .featureServer else {
            throw ServiceError(.unsupported, "a map service's layers are read-only: edits go to its feature service", url: reader.info.url)
        }
        guard let cache = state.withLock({ $0.cache }) else { return SentEdits(added: [], updated: [], deleted: []) }
        let pending = cache.pendingEdits()
        let request = pending.request
        guard !request.adds.isEmpty || !request.updates.isEmpty || !request.deletes.isEmpty else {
            return SentEdits(added: [], updated: [], deleted: [])
        }
        var edits = request
        edits.rollbackOnFailure = true
        edits.dateOnlyFieldNames = cache.snapshot.schema.dateOnlyFieldNames
        let url = reader.info.url + "/applyEdits"
        let response = try await reader.client.send(
            ServiceRequest(url: url, parameters: edits.formParameters + [("f", "json")], method: .post, idempotent: false))
        let json = try response.json()
        func results(_ key: String, count: Int) throws -> [JSONValue] {
            let values = json[key]?.arrayValue ?? []
            guard values.count == count else {
                throw ServiceError(.invalidResponse, "\(key) has \(values.count) results for \(count) edits", url: url)
            }
            return values
        }
        let addResults = try results("addResults", count: request.adds.count)
        let updateResults = try results("updateResults", count: request.updates.count)
        let deleteResults = try results("deleteResults", count: request.deletes.count)
        var failures: [String] = []
        func check(_ result: JSONValue, _ what: String) {
            guard result["success"]?.boolValue != true else { return }
            let error = result["error"]
            let text = error?["description"]?.stringValue ?? error?["message"]?.stringValue ?? "no reason given"
            failures.append("\(what): \(text)" + (error?["code"]?.doubleValue.map { " (code \(Int($0)))" } ?? ""))
        }
        for (i, result) in addResults.enumerated() { check(result, "add \(i + 1) (local object ID \(pending.addObjectIDs[i]))") }
        for (i, result) in updateResults.enumerated() { check(result, "update of object ID \(request.updates[i].objectID ?? -1)") }
        for (i, result) in deleteResults.enumerated() { check(result, "delete of object ID \(request.deletes[i])") }
        guard failures.isEmpty else {
            throw ServiceError(.serviceError, "the service applied none of the edits: " + failures.joined(separator: "; "), url: url)
        }
        var serviceIDs: [Int64] = []
        for result in addResults {
            guard let number = result["objectId"]?.doubleValue, let id = Int64(exactly: number) else {
                throw ServiceError(.invalidResponse, "an add result has no objectId", url: url)
            }
            serviceIDs.append(id)
        }
        cache.acknowledge(pending, serviceObjectIDs: serviceIDs)
        return SentEdits(
            added: Array(zip(pending.addObjectIDs, serviceIDs)).map { (local: $0.0, service: $0.1) },
            updated: request.updates.compactMap(\.objectID), deleted: request.deletes)
    }

    // MARK: - Fetching

    /// Reads from the service and merges into the cache (or replaces it with `clearCache`), one
    /// fetch at a time. `envelope` selects by envelopes (ArcGIS's EnvelopeIntersects) when
    /// `byEnvelope`: what a map draws by.
    @discardableResult
    private func fetch(
        whereClause: String?, envelope: Envelope?, byEnvelope: Bool = false, outFields: [String], maxFeatures: Int?, clearCache: Bool
    ) async throws -> FeatureTable {
        try await fetching.acquire()
        defer { Task { await fetching.release() } }
        let clauses = [definitionExpression, whereClause ?? ""].filter { !$0.isEmpty && $0 != "1=1" }
        let combined = clauses.isEmpty ? nil : clauses.map { "(\($0))" }.joined(separator: " AND ")
        let fetched: FeatureTable
        switch service {
        case .arcGIS(let reader):
            var query = ArcGISLayerQuery(whereClause: combined ?? "1=1", envelope: envelope, outFields: outFields, maxFeatures: maxFeatures)
            query.pageSize = reader.info.maxRecordCount
            query.matchEnvelopes = byEnvelope
            fetched = try await reader.features(query)
        case .ogc(let reader):
            // A collection's fields are inferred from the first features read (typed by the
            // queryables where that loses nothing); every later fetch reads with those fields,
            // so a property that was null or whole-numbered then holds later values.
            let (known, idField, held) = state.withLock { ($0.cache?.snapshot.schema.fields, $0.featureIDFieldName, $0.cache?.snapshot.count ?? 0) }
            let read = try await reader.read(
                OGCCollectionQuery(bbox: envelope, filter: combined, maxFeatures: maxFeatures), fields: known, featureIDFieldName: idField)
            // Features without ids cannot be told apart from one fetch to the next: they may
            // fill an empty cache, not be merged into one.
            if !read.identified, !clearCache, held > 0 {
                throw ServiceError(
                    .unsupported, "the collection's features have no ids: they cannot be merged into the features cached (read it as a snapshot, or clear the cache)",
                    url: reader.info.itemsURL)
            }
            if known != nil {
                fetched = read.table
            } else {
                // The first fetch makes the cache; when it found nothing, one feature of the
                // collection (a sample, not cached) tells the fields; an empty collection leaves
                // the cache unmade.
                var sample = read
                if read.table.count == 0 {
                    var probe = OGCCollectionQuery(maxFeatures: 1)
                    probe.pageSize = 1
                    sample = try await reader.read(probe)
                    guard sample.table.count > 0 else {
                        state.withLock { $0.fetches += 1 }
                        return read.table
                    }
                }
                do {
                    let typed = try sample.table.conformed(to: reader.info.typed(sample.table))
                    fetched = read.table.count > 0 ? typed : try typed.queryFeatures(QueryParameters(whereClause: "1=0", outFields: ["*"])).makeTable()
                } catch {
                    throw ServiceError(.invalidResponse, "the features fetched do not fit the collection's fields: \(error)", url: reader.info.itemsURL)
                }
                state.withLock { $0.featureIDFieldName = sample.featureIDFieldName }
            }
        }
        // The merge runs outside the state's lock: readers of ``currentTable`` (every query and
        // draw of a layer over the table) never wait for it; the cache has a writer lock of its own.
        let existing = state.withLock { state -> EditableFeatureTable? in
            state.fetches += 1
            return clearCache ? nil : state.cache
        }
        if let existing {
            do {
                try existing.mergeFromService(fetched)
            } catch {
                throw ServiceError(.invalidResponse, "the features fetched do not fit the cache: \(error)", url: Self.url(of: service))
            }
        } else {
            let cache = try EditableFeatureTable(fetched, options: Self.editingOptions(service))
            state.withLock { $0.cache = cache }
        }
        return fetched
    }

    /// The service's URL, for errors.
    private static func url(of service: Service) -> String {
        switch service {
        case .arcGIS(let reader): reader.info.url
        case .ogc(let reader): reader.info.itemsURL
        }
    }

    /// `extent` scaled by `factor` about its centre.
    static func scaled(_ extent: Envelope, by factor: Double) -> Envelope {
        let cx = (extent.xmin + extent.xmax) / 2, cy = (extent.ymin + extent.ymax) / 2
        let hw = (extent.xmax - extent.xmin) / 2 * factor, hh = (extent.ymax - extent.ymin) / 2 * factor
        return Envelope(xmin: cx - hw, ymin: cy - hh, xmax: cx + hw, ymax: cy + hh)
    }

    /// An empty table with the layer's fields and types.
    static func emptyTable(_ info: ArcGISLayerInfo) throws -> FeatureTable {
        var pages = try ArcGISLayerReader.pagesReader(info, fields: info.fields)
        return try ArcGISLayerReader.typedTable(&pages, info, url: info.url)
    }

    /// What the cache lets local edits do: what the layer's capabilities allow (a map service's
    /// layer and an OGC API collection: nothing), as ArcGIS's `canAdd`/`canUpdate`/`canDelete`.
    static func editingOptions(_ service: Service) -> EditingOptions {
        switch service {
        case .arcGIS(let reader):
            EditingOptions(capabilities: reader.info.capabilities, allowGeometryUpdates: reader.info.allowGeometryUpdates)
        case .ogc:
            EditingOptions(capabilities: .query)
        }
    }

}

/// What ``ServiceFeatureTable/applyEdits()`` sent.
public struct SentEdits: Sendable {
    /// Each added feature's local object ID and the one the service gave it.
    public var added: [(local: Int64, service: Int64)]
    /// The object IDs of the features updated.
    public var updated: [Int64]
    /// The object IDs of the features deleted.
    public var deleted: [Int64]
}

extension ServiceFeatureTable {
    /// A table over the ArcGIS feature service layer at `url` (`…/FeatureServer/{layerId}`, or a
    /// map service's `…/MapServer/{layerId}`, read-only), its layer document read — ArcGIS's
    /// `ServiceFeatureTable(url)`. Nothing else is fetched before ``load()``.
    /// - Throws: ``ServiceError`` when the layer document cannot be read.
    public static func arcGIS(
        _ url: String, client: ServiceClient, mode: FeatureRequestMode = .snapshot, definitionExpression: String = ""
    ) async throws -> ServiceFeatureTable {
        try ServiceFeatureTable(
            service: .arcGIS(try await ArcGISLayerReader.open(url, client: client)), mode: mode, definitionExpression: definitionExpression)
    }

    /// A table over collection `collectionID` of the OGC API – Features server whose landing
    /// page is `url`, its conformance, collection document and queryables read — ArcGIS's
    /// `OGCFeatureCollectionTable`. Nothing else is fetched before ``load()``.
    /// - Throws: ``ServiceError`` when the documents cannot be read.
    public static func ogcCollection(
        _ url: String, collection collectionID: String, client: ServiceClient, mode: FeatureRequestMode = .snapshot,
        definitionExpression: String = ""
    ) async throws -> ServiceFeatureTable {
        try ServiceFeatureTable(
            service: .ogc(try await OGCCollectionReader.open(url, collection: collectionID, client: client)), mode: mode,
            definitionExpression: definitionExpression)
    }
}

extension FeatureLayer {
    /// A layer over `table`, named as the service names its layer (an OGC API collection by its
    /// title) and drawn with the layer's own renderer when its `drawingInfo` has one GeoSieve
    /// reads (else the default renderer of its geometry type).
    ///
    /// An ArcGIS layer's document also gives the layer its scale range (`minScale`,
    /// `maxScale`), its visibility (`defaultVisibility`), its display field (`displayField`,
    /// when the table has that field), its opacity (1 − `drawingInfo.transparency`/100) and its
    /// time (`timeInfo`). Its `definitionExpression` is applied by the service and reported as
    /// the layer's ``/SieveMap/FeatureLayer/sourceDefinitionExpression``, not sent again: a
    /// definition expression set on the layer narrows the service's features further.
    public init(_ table: ServiceFeatureTable) {
        switch table.service {
        case .arcGIS(let reader):
            self.init(source: table, name: reader.info.name.isEmpty ? "layer" : reader.info.name, renderer: reader.info.drawingInfo?.renderer)
        case .ogc(let reader):
            self.init(source: table, name: reader.info.title)
        }
        takeServiceSettings(of: table)
    }

    /// Gives the layer what `table`'s service layer says of itself, as ``init(_:)`` does: its
    /// scale range, visibility, display field, opacity, time and definition expression (an OGC
    /// API collection says none of these). For a layer over the features a service table read
    /// (its ``ServiceFeatureTable/currentTable``); the renderer is left to the caller.
    public mutating func takeServiceSettings(of table: ServiceFeatureTable) {
        guard case .arcGIS(let reader) = table.service else { return }
        let info = reader.info
        minScale = info.minScale
        maxScale = info.maxScale
        isVisible = info.defaultVisibility
        opacity = 1 - (info.drawingInfo?.transparency ?? 0) / 100
        sourceDefinitionExpression = info.definitionExpression
        timeInfo = info.timeInfo
        if let display = info.displayFieldName, let field = table.schema.fields.first(where: { $0.name.lowercased() == display.lowercased() }) {
            displayFieldName = field.name
        }
    }
}
#endif
