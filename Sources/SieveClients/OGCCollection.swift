// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
import SieveBase
import SieveCQL
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveJSON

/// What an OGC API – Features server says of one collection (`…/collections/{id}`) and of
/// itself (`…/conformance`): what a service table needs to read the collection's items and to
/// know which filters the server evaluates.
public struct OGCCollectionInfo: Sendable {
    /// The server's landing page URL (`…/ogc`), without query.
    public var serviceURL: String
    /// The collection's id.
    public var id: String
    /// Its title (its id when it has none).
    public var title: String
    /// Its items URL (the `items` link, else `…/collections/{id}/items`).
    public var itemsURL: String
    /// Its spatial extent (the first `extent.spatial.bbox`, CRS84), when given.
    public var extent: Envelope?
    /// Whether the server evaluates `filter` in CQL2 text (it declares Part 3's filter and
    /// cql2-text conformance classes). Without it, filters are applied to what was read.
    public var supportsCQL2Text: Bool
    /// The collection's queryables (`…/queryables`, a JSON Schema; Part 3), when the server
    /// declares or links them: the properties a filter may name, with the field type each one's
    /// JSON Schema type says. Empty when the server has none.
    public var queryables: [Queryable] = []
    /// Whether the server declares queryables (Part 3's queryables conformance class) or the
    /// collection links to them.
    var hasQueryables: Bool

    /// One queryable property.
    public struct Queryable: Sendable, Hashable {
        /// The property's name.
        public var name: String
        /// The field type its schema says: `integer` → BigInteger, `number` → Double, `string`
        /// → String (Date with format `date-time`, DateOnly with `date`), `boolean` → SmallInteger (as the
        /// loaders store booleans); `nil` for a geometry or a property of another or no type.
        public var type: FieldType?

        /// Reads a queryables document's `properties`.
        static func read(_ document: JSONValue) -> [Queryable] {
            guard let members = document["properties"]?.objectValue?.members else { return [] }
            return members.map { member in
                let schema = member.value
                let format = schema["format"]?.stringValue ?? ""
                let type: FieldType?
                switch schema["type"]?.stringValue {
                case "integer": type = .bigInteger
                case "number": type = .double
                case "boolean": type = .smallInteger
                case "string": type = format == "date-time" ? .date : format == "date" ? .dateOnly : .string
                default: type = nil
                }
                return Queryable(name: member.key, type: format.hasPrefix("geometry") ? nil : type)
            }
        }
    }

    /// The fields of `table` (inferred from the features read) with the types the queryables
    /// give them where that loses nothing: a property whose values read so far were whole
    /// numbers but that is a `number` becomes Double, one that was always `null` takes its
    /// declared type, a `date` whose values read so far were all days (midnights) becomes
    /// DateOnly. Other differences keep the inferred type (the values read decide).
    public func typed(_ table: FeatureTable) -> [Field] {
        let fields = table.schema.fields
        guard !queryables.isEmpty else { return fields }
        let declared = Dictionary(queryables.compactMap { q in q.type.map { (q.name.lowercased(), $0) } }, uniquingKeysWith: { a, _ in a })
        return fields.enumerated().map { index, field in
            guard field.type != .oid, let type = declared[field.name.lowercased()] else { return field }
            if type == .dateOnly, field.type == .date, case .date(let column) = table.columns[index] {
                let days = column.values.indices.allSatisfy { column.validity?.isValid($0) == false || CivilTime.isMidnight(column.values[$0]) }
                guard days else { return field }
                var typed = field
                typed.type = .dateOnly
                return typed
            }
            guard type.columnType != field.columnType else { return field }
            let widened = field.columnType == .integer && type.columnType == .double
            let allNull = (table.columns[index].validity?.nullCount ?? 0) == table.count
            guard widened || allNull else { return field }
            var typed = field
            typed.type = type
            return typed
        }
    }

    /// Reads a collection document and the server's conformance classes.
    package init(collection json: JSONValue, conformsTo classes: [String], serviceURL: String, id: String) throws {
        let url = serviceURL + "/collections/" + FormEncoding.encode(id)
        guard json.objectValue != nil else {
            throw ServiceError(.invalidResponse, "the collection document is not a JSON object", url: url)
        }
        self.serviceURL = serviceURL
        self.id = json["id"]?.stringValue ?? id
        title = json["title"]?.stringValue ?? id
        let items = json["links"]?.arrayValue?.first { link in
            link["rel"]?.stringValue == "items" && (link["type"]?.stringValue ?? "application/geo+json").contains("json")
        }
        itemsURL = items?["href"]?.stringValue ?? url + "/items"
        if let box = json["extent"]?["spatial"]?["bbox"]?.arrayValue?.first?.arrayValue?.compactMap(\.doubleValue), box.count == 4 || box.count == 6 {
            let (west, south) = (box[0], box[1])
            let (east, north) = box.count == 4 ? (box[2], box[3]) : (box[3], box[4])
            if west <= east, south <= north { extent = Envelope(xmin: west, ymin: south, xmax: east, ymax: north) }
        }
        let filter = classes.contains { $0.hasSuffix("/filter") && $0.contains("ogcapi-features-3") }
        let text = classes.contains { $0.hasSuffix("/conf/cql2-text") }
        supportsCQL2Text = filter && text
        hasQueryables = classes.contains { $0.hasSuffix("/conf/queryables") && $0.contains("ogcapi-features-3") }
            || json["links"]?.arrayValue?.contains { $0["rel"]?.stringValue?.hasSuffix("queryables") == true } == true
    }
}

/// What to read of a collection.
public struct OGCCollectionQuery: Sendable {
    /// A box the features must intersect (CRS84: west, south, east, north); sent as `bbox`.
    public var bbox: Envelope?
    /// A CQL2 text filter: sent as `filter` when the server evaluates CQL2 text, else applied
    /// to the features read.
    public var filter: String?
    /// Features per page (`limit`). Default 1,000; servers may send fewer.
    public var pageSize: Int = 1000
    /// The most features to read; `nil` for all.
    public var maxFeatures: Int?

    /// A query for the features in `bbox` passing `filter` (every feature by default).
    public init(bbox: Envelope? = nil, filter: String? = nil, maxFeatures: Int? = nil) {
        self.bbox = bbox
        self.filter = filter
        self.maxFeatures = maxFeatures
    }
}

/// Reads an OGC API – Features collection through a ``ServiceClient``, page by page through
/// `next` links (never by computing offsets, which servers need not support).
///
/// A read stops when a page has no `next` link, or once ``OGCCollectionQuery/maxFeatures``
/// features have come. A server that sends a `next` link it sent before, a page without
/// features that still links to a next one, or more features than its own `numberMatched`, is
/// refused with an error instead of being followed forever.
public struct OGCCollectionReader: Sendable {
    /// The client requests go through.
    public let client: ServiceClient
    /// The collection's document.
    public let info: OGCCollectionInfo
    /// The object IDs given to feature ids that are not integers, shared by the reader's copies.
    private let featureIDs = FeatureIDs()

    /// Object IDs for feature ids that are not integers (`"countries.12"`): 1, 2, … in the order
    /// the ids are first read, the same id always the same number.
    private final class FeatureIDs: Sendable {
        private let state = Locked<[String: Int64]>([:])

        func objectIDs(_ ids: [String]) -> [Int64] {
            state.withLock { known in
                ids.map { id in
                    if let number = known[id] { return number }
                    let number = Int64(known.count + 1)
                    known[id] = number
                    return number
                }
            }
        }
    }

    /// Reads the conformance classes of the server at `serviceURL` (its landing page, `…/ogc`),
    /// the document of collection `collectionID` and its queryables (when declared).
    /// - Throws: ``ServiceError``.
    public static func open(_ serviceURL: String, collection collectionID: String, client: ServiceClient) async throws -> OGCCollectionReader {
        let base = serviceURL.hasSuffix("/") ? String(serviceURL.dropLast()) : serviceURL
        let conformance = try await client.send(ServiceRequest(url: base + "/conformance", parameters: [("f", "json")]))
        let classes = try conformance.json()["conformsTo"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let collection = try await client.send(
            ServiceRequest(url: base + "/collections/" + FormEncoding.encode(collectionID), parameters: [("f", "json")]))
        var info = try OGCCollectionInfo(collection: try collection.json(), conformsTo: classes, serviceURL: base, id: collectionID)
        if info.hasQueryables {
            // Queryables only refine the fields' types: a server that fails to answer them is
            // read without.
            let url = base + "/collections/" + FormEncoding.encode(collectionID) + "/queryables"
            if let document = try? await client.send(ServiceRequest(url: url, parameters: [("f", "json")], accept: "application/schema+json, application/json")).json() {
                info.queryables = OGCCollectionInfo.Queryable.read(document)
            }
        }
        return OGCCollectionReader(client: client, info: info)
    }

    /// The reader of a collection whose document is already read.
    public init(client: ServiceClient, info: OGCCollectionInfo) {
        self.client = client
        self.info = info
    }

    /// The features `query` selects, as a table (fields inferred from the features read;
    /// object IDs from their `id`s: integer ids are the object IDs, other ids — kept in an `id`
    /// field — are numbered 1, 2, … in the order this reader (and its copies) first read them, so
    /// a feature has the same object ID in every read): in the order the server sent them, or
    /// in object-ID order when a filter or ``OGCCollectionQuery/maxFeatures`` was applied here.
    /// - Throws: ``ServiceError`` for a failed request, a page that cannot be read, or links
    ///   that do not end; ``/SieveCQL/CQL2Error`` for a filter that does not parse (or, applied
    ///   locally, does not fit the features read).
    public func features(_ query: OGCCollectionQuery = OGCCollectionQuery()) async throws -> FeatureTable {
        try await read(query).table
    }

    /// What ``read(_:fields:featureIDFieldName:)`` read.
    package struct Read: Sendable {
        /// The features.
        package var table: FeatureTable
        /// Whether their object IDs identify them from one read to the next: integer `id`s (or
        /// an `OBJECTID` property), or other ids numbered by the reader (see ``features(_:)``).
        /// Without ids the object IDs are positions in this read only.
        package var identified: Bool
        /// The field holding the features' ids when they are not the object IDs.
        package var featureIDFieldName: String?
    }

    /// The features `query` selects, as ``features(_:)`` reads them — with `fields` (those of an
    /// earlier read: properties converted to them, others ignored; the ids in the field
    /// `featureIDFieldName` names) instead of fields inferred from the features.
    package func read(_ query: OGCCollectionQuery, fields: [Field]? = nil, featureIDFieldName: String? = nil) async throws -> Read {
        let local: CQL2Filter?
        var parameters: [(name: String, value: String)] = [("limit", String(Swift.max(1, query.pageSize))), ("f", "json")]
        if let bbox = query.bbox {
            parameters.append(("bbox", "\(bbox.xmin),\(bbox.ymin),\(bbox.xmax),\(bbox.ymax)"))
        }
        if let filter = query.filter {
            let parsed = try CQL2Filter(filter, encoding: .text)
            if info.supportsCQL2Text {
                parameters += [("filter", filter), ("filter-lang", "cql2-text")]
                local = nil
            } else {
                local = parsed
            }
        } else {
            local = nil
        }
        var pages: FeaturePages
        if let fields, let oid = fields.first(where: { $0.type == .oid }) {
            do {
                pages = try FeaturePages(geoJSONIn: .wgs84, fields: fields, objectIdFieldName: oid.name, featureIDFieldName: featureIDFieldName)
            } catch {
                throw ServiceError(.invalidResponse, "the fields given cannot read the collection: \(error)", url: info.itemsURL)
            }
        } else {
            pages = FeaturePages(geoJSONIn: .wgs84)
        }
        var request = ServiceRequest(url: info.itemsURL, parameters: parameters, accept: "application/geo+json, application/json")
        var seen: Set<String> = []
        let limit = query.maxFeatures ?? Int.max
        // With the filter applied here, the features read are not yet those selected: every
        // page is read, and the limit applied to what passes.
        let readLimit = local == nil ? limit : Int.max
        while true {
            let response = try await client.send(request)
            let page: FeaturePages.Page
            do {
                page = try pages.add(response.body)
            } catch {
                throw ServiceError(.invalidResponse, "a page cannot be read: \(error)", url: response.url, status: response.status)
            }
            if let matched = page.numberMatched, pages.featureCount > matched {
                throw ServiceError(
                    .invalidResponse, "the pages hold \(pages.featureCount) features, more than the numberMatched \(matched)", url: response.url)
            }
            guard pages.featureCount < readLimit, let next = page.next else { break }
            guard page.features > 0 else {
                throw ServiceError(.invalidResponse, "a page without features links to a next page", url: response.url)
            }
            guard seen.insert(next).inserted else {
                throw ServiceError(.invalidResponse, "the next link repeats a page already read: \(ServiceRequest.redacted(next))", url: response.url)
            }
            request = ServiceRequest(url: next, accept: request.accept)
        }
        var table: FeatureTable
        var identified = true
        do {
            table = try pages.table()
            let report = pages.lastReport
            if report.objectIDsArePositions {
                // Ids that are not integers are numbered by the reader, so that a feature keeps
                // its object ID in every read; features without ids have none to keep.
                let column = report.featureIDFieldName.flatMap { table.schema.index(ofField: $0) }
                let ids = column.map { column in
                    (0..<table.count).compactMap { row -> String? in
                        switch table.value(row: row, fieldIndex: column) {
                        case .null: nil
                        case .string(let text): text
                        case let value: value.description
                        }
                    }
                }
                if let ids, ids.count == table.count {
                    table = try table.replacingObjectIDs(featureIDs.objectIDs(ids))
                } else {
                    identified = table.count == 0
                }
            }
        } catch {
            throw ServiceError(.invalidResponse, "the features cannot make one table: \(error)", url: info.itemsURL)
        }
        if let local {
            table = try table.queryFeatures(QueryParameters(outFields: ["*"], filter: local)).makeTable()
        }
        if table.count > limit {
            table = try table.queryFeatures(QueryParameters(outFields: ["*"], resultOffset: 0, maxFeatures: limit)).makeTable()
        }
        return Read(table: table, identified: identified, featureIDFieldName: pages.lastReport.featureIDFieldName)
    }
}
#endif
