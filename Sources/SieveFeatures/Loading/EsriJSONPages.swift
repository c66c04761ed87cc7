import SieveGeometry

/// The pages of one layer's features — a feature service's query answers, Esri JSON
/// FeatureSets — read one by one with the layer's fields and joined into one table at the end:
/// how a service table loads what it fetched.
///
/// Each page's features are read straight into column builders (as ``FeatureTable/load(json:schema:)``
/// reads a file, on several threads when a page is large) and kept as pieces; ``table()`` joins
/// the pieces of every page in the order the pages came. A page's other members are not read
/// but for `exceededTransferLimit`, which tells the caller whether to ask for more.
package struct EsriJSONPages {
    private let context: FeatureReadContext
    private let spatialReference: SpatialReference
    private let globalIdFieldName: String?
    private let displayFieldName: String?
    private var pieces: [FeatureChunk] = []
    /// The features read so far, over every page.
    package private(set) var featureCount = 0

    /// What one page held.
    package struct Page: Sendable {
        /// Its features.
        package var features: Int
        /// Its `exceededTransferLimit` (absent: `false`).
        package var exceededTransferLimit: Bool
    }

    /// Pages of a layer with `fields` (the object-ID field named `objectIdFieldName`, or found
    /// as ``FeatureTable/load(esriJSON:schema:)`` finds it) and features of `geometryType`, in
    /// `spatialReference`.
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

    /// Reads one page: a FeatureSet object with a `features` array.
    /// - Throws: ``FeatureTableError`` for a page that is not JSON, has no `features` array, or
    ///   a feature that does not fit the fields (its index counted over every page so far).
    package mutating func add(_ bytes: [UInt8]) throws(FeatureTableError) -> Page {
        let context = self.context
        let base = featureCount
        let (read, exceeded) = try bytes.withUnsafeBufferPointer { buffer throws(FeatureTableError) -> ([FeatureChunk], Bool) in
            var reader = JSONReader(pulling: buffer)
            var read: [FeatureChunk]?
            var exceeded = false
            do throws(FeatureTableError) {
                try StreamingLoader.json { () throws(GeometryError) in try reader.enterContainer() }
                var first = true
                while let key = try StreamingLoader.json({ () throws(GeometryError) in try reader.nextMember(first: &first) }) {
                    switch key.string(in: buffer) {
                    case "features" where read == nil:
                        guard try StreamingLoader.json({ () throws(GeometryError) in reader.peek() }) == UInt8(ascii: "[") else {
                            throw FeatureTableError(.invalidEsriJSON, "\"features\" must be an array", position: key.position)
                        }
                        read = try StreamingLoader.readFeatures(&reader, buffer: buffer, context: context, sequence: false, progress: nil)
                    case "exceededTransferLimit":
                        let value = try StreamingLoader.json { () throws(GeometryError) in try reader.readValue() }
                        guard value.isNull || value.boolValue != nil else {
                            throw FeatureTableError(
                                .invalidEsriJSON, "\"exceededTransferLimit\" must be true or false, not \(value.kindDescription)",
                                position: value.position)
                        }
                        exceeded = value.boolValue ?? false
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
            guard let read else { throw FeatureTableError(.invalidEsriJSON, "the page has no \"features\" array") }
            return (read, exceeded)
        }
        var features = 0
        for var piece in read {
            piece.featureBase += base
            features += piece.features
            pieces.append(piece)
        }
        featureCount += features
        return Page(features: features, exceededTransferLimit: exceeded)
    }

    /// The table of every page's features, in the order they came; the pages start again empty.
    /// - Throws: ``FeatureTableError`` when the features cannot make one table (an object ID
    ///   given twice, geometries of another type than the layer's).
    package mutating func table() throws(FeatureTableError) -> FeatureTable {
        // The pieces are handed over (not copied), so each is freed once joined.
        let joined = pieces
        pieces = []
        featureCount = 0
        return try StreamingLoader.assemble(
            consume joined, context: context, spatialReference: spatialReference, globalIdFieldName: globalIdFieldName,
            displayFieldName: displayFieldName
        ).0
    }
}
