import SieveFeatures
import SieveGeometry

/// The pages of one layer's features — a feature service's query answers (Esri JSON
/// FeatureSets) or an OGC API collection's items (GeoJSON FeatureCollections) — read one by one
/// and joined into one table at the end: how a service table loads what it fetched.
///
/// Each page's features are read straight into column builders (as ``FeatureTable/load(json:schema:)``
/// reads a file, on several threads when a page is large) and kept as pieces; ``table()`` joins
/// the pieces of every page in the order the pages came, with the layer's fields (Esri JSON) or
/// fields inferred from every page (GeoJSON). Of a page's other members only those that say
/// whether there is more are read: `exceededTransferLimit`, the `next` link, `numberMatched`.
package struct FeaturePages {
    private let context: FeatureReadContext
    private let spatialReference: SpatialReference
    private let globalIdFieldName: String?
    private let displayFieldName: String?
    private var pieces: [FeatureChunk] = []
    /// The features read so far, over every page.
    package private(set) var featureCount = 0
    /// What the last ``table()`` found: whether its object IDs are positions, and which field
    /// keeps feature `id`s that were not object IDs.
    package private(set) var lastReport = LoadReport()

    /// What one page held.
    package struct Page: Sendable {
        /// Its features.
        package var features: Int
        /// Its `exceededTransferLimit` (absent: `false`).
        package var exceededTransferLimit: Bool
        /// The `href` of its `links` member whose `rel` is `next` (GeoJSON pages).
        package var next: String?
        /// Its `numberMatched` (GeoJSON pages), when a whole number.
        package var numberMatched: Int?
    }

    /// Esri JSON pages of a layer with `fields` (the object-ID field named `objectIdFieldName`,
    /// or found as ``FeatureTable/load(esriJSON:schema:)`` finds it) and features of
    /// `geometryType`, in `spatialReference`.
    /// - Throws: ``FeatureTableError/Kind/invalidSchema`` for fields that cannot make a table.
    package init(
        fields: [Field], objectIdFieldName: String?, geometryType: GeometryType?, spatialReference: SpatialReference,
        globalIdFieldName: String? = nil, displayFieldName: String? = nil, options: LoadOptions = LoadOptions()
    ) throws(FeatureTableError) {
        context = FeatureReadContext(
            format: .esriJSON, explicit: try StreamingLoader.explicitFields(fields, objectIdFieldName: objectIdFieldName),
            declaredType: geometryType, options: options, objectIdFieldName: objectIdFieldName)
        self.spatialReference = spatialReference
        self.globalIdFieldName = globalIdFieldName
        self.displayFieldName = displayFieldName
    }

    /// GeoJSON pages (in CRS84 unless `spatialReference` says otherwise), their fields inferred
    /// from every page's features, their object IDs from the features' `id`s as
    /// ``FeatureTable/load(geoJSON:schema:)`` reads them.
    package init(geoJSONIn spatialReference: SpatialReference = .wgs84, options: LoadOptions = LoadOptions()) {
        context = FeatureReadContext(format: .geoJSON, explicit: nil, options: options)
        self.spatialReference = spatialReference
        globalIdFieldName = nil
        displayFieldName = nil
    }

    /// GeoJSON pages (in CRS84 unless `spatialReference` says otherwise) read with `fields`:
    /// properties converted to the fields' types as ``FeatureTable/load(geoJSON:schema:)`` converts
    /// them to a schema (properties without a field ignored, missing ones NULL), the object IDs
    /// from the `objectIdFieldName` property or the features' integer `id`s, and ids that are
    /// not object IDs kept in the field `featureIDFieldName` names — so that pages read later
    /// have the fields of the first.
    /// - Throws: ``FeatureTableError/Kind/invalidSchema`` for fields that cannot make a table.
    package init(
        geoJSONIn spatialReference: SpatialReference, fields: [Field], objectIdFieldName: String, featureIDFieldName: String?,
        options: LoadOptions = LoadOptions()
    ) throws(FeatureTableError) {
        context = FeatureReadContext(
            format: .geoJSON, explicit: try StreamingLoader.explicitFields(fields, objectIdFieldName: objectIdFieldName), options: options,
            featureIDFieldName: featureIDFieldName)
        self.spatialReference = spatialReference
        globalIdFieldName = nil
        displayFieldName = nil
    }

    /// Reads one page: a FeatureSet or FeatureCollection object with a `features` array.
    /// - Throws: ``FeatureTableError`` for a page that is not JSON, has no `features` array, or
    ///   a feature that does not fit the fields (its index counted over every page so far).
    package mutating func add(_ bytes: [UInt8]) throws(FeatureTableError) -> Page {
        let context = self.context
        let base = featureCount
        let (read, page) = try bytes.withUnsafeBufferPointer { buffer throws(FeatureTableError) -> ([FeatureChunk], Page) in
            var reader = JSONReader(pulling: buffer)
            var read: [FeatureChunk]?
            var page = Page(features: 0, exceededTransferLimit: false)
            let format = context.format == .geoJSON ? FeatureTableError.Kind.invalidGeoJSON : .invalidEsriJSON
            do throws(FeatureTableError) {
                try StreamingLoader.json { () throws(GeometryError) in try reader.enterContainer() }
                var first = true
                while let key = try StreamingLoader.json({ () throws(GeometryError) in try reader.nextMember(first: &first) }) {
                    switch key.string(in: buffer) {
                    case "features" where read == nil:
                        guard try StreamingLoader.json({ () throws(GeometryError) in reader.peek() }) == UInt8(ascii: "[") else {
                            throw FeatureTableError(format, "\"features\" must be an array", position: key.position)
                        }
                        read = try StreamingLoader.readFeatures(&reader, buffer: buffer, context: context, sequence: false, progress: nil)
                    case "exceededTransferLimit":
                        let value = try StreamingLoader.json { () throws(GeometryError) in try reader.readValue() }
                        guard value.isNull || value.boolValue != nil else {
                            throw FeatureTableError(
                                format, "\"exceededTransferLimit\" must be true or false, not \(value.kindDescription)",
                                position: value.position)
                        }
                        page.exceededTransferLimit = value.boolValue ?? false
                    case "links":
                        let value = try StreamingLoader.json { () throws(GeometryError) in try reader.readValue() }
                        page.next = value.arrayValue?.first { $0["rel"]?.stringValue == "next" }?["href"]?.stringValue
                    case "numberMatched":
                        let value = try StreamingLoader.json { () throws(GeometryError) in try reader.readValue() }
                        page.numberMatched = value.doubleValue.flatMap { Int(exactly: $0) }
                    default:
                        try StreamingLoader.json { () throws(GeometryError) in try reader.skipValue() }
                    }
                }
                try StreamingLoader.json { () throws(GeometryError) in try reader.finishDocument() }
            } catch {
                var error = error
                error.locate(in: buffer)
                throw error
            }
            guard let read else { throw FeatureTableError(format, "the page has no \"features\" array") }
            return (read, page)
        }
        var features = 0
        for var piece in read {
            piece.featureBase += base
            features += piece.features
            pieces.append(piece)
        }
        featureCount += features
        var result = page
        result.features = features
        return result
    }

    /// The table of every page's features, in the order they came; the pages start again empty.
    /// - Throws: ``FeatureTableError`` when the features cannot make one table (an object ID
    ///   given twice, geometries of another type than the layer's).
    package mutating func table() throws(FeatureTableError) -> FeatureTable {
        // The pieces are handed over (not copied), so each is freed once joined.
        let joined = pieces
        pieces = []
        featureCount = 0
        let (table, report) = try StreamingLoader.assemble(
            consume joined, context: context, spatialReference: spatialReference, globalIdFieldName: globalIdFieldName,
            displayFieldName: displayFieldName)
        lastReport = report
        return table
    }
}
