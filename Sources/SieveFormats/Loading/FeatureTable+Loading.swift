import SieveFeatures
import Foundation
import SieveColumns
import SieveGeometry

extension FeatureTable {
    /// Loads a GeoJSON FeatureCollection.
    ///
    /// **Text.** The text must be exactly one JSON value (RFC 8259, strictly): truncated text,
    /// anything but white space after the value, and an object with a repeated member name are
    /// errors with the position. The root must be an object with `"type": "FeatureCollection"`
    /// and a `features` array, each element an object with `"type": "Feature"`; a missing
    /// `geometry` or `properties` member reads as `null`.
    ///
    /// **Fields.** Without `schema`, each property becomes a field, in order of first
    /// appearance (property names are told apart byte for byte), typed from the JSON text of
    /// its values across all features:
    /// - integer literals only (no fraction, no exponent, fitting `Int64`) → Integer when all
    ///   fit 32 bits, else BigInteger;
    /// - numbers with at least one written with a fraction or exponent (`889953.0`, `1e3`) or
    ///   an integer literal beyond the 64-bit range → Double;
    /// - booleans only → SmallInteger (0 and 1);
    /// - strings that are all ISO-8601 dates or date-times (`2024-03-01`,
    ///   `2024-03-01T12:30:00Z`) → Date (epoch milliseconds, UTC; `"1888"` and `"2005-06"`
    ///   stay String);
    /// - anything else → String: values of mixed kinds are stored as text (numbers in JSON form,
    ///   booleans as `true`/`false`, arrays and objects as compact JSON); a property that is
    ///   always `null` is a String field.
    ///
    /// A property missing from a feature is NULL there. A number beyond the range of doubles
    /// (`1e400`) is an error in any field. A table holds at most
    /// ``/SieveFeatures/Schema/maximumFieldCount`` fields: the property that would exceed it is an
    /// error naming its feature. With `schema` (e.g. read with
    /// ``/SieveFeatures/Field/fields(esriJSON:)-(String)``), properties are matched to fields by
    /// name ignoring case (two properties of one feature matching the same field are an error),
    /// converted to each field's type (numbers and numeric strings to numbers, anything to text,
    /// ISO-8601 strings or epoch milliseconds to dates), and properties without a field are
    /// ignored.
    ///
    /// **Object IDs.** A property named `OBJECTID` (any case) holding an integer in every
    /// feature is the object-ID field (with `schema`: the field of type OID, else an integer
    /// field named `OBJECTID`). Otherwise an `OBJECTID` field is added first (named
    /// `OBJECTID_1` if a property already has that name) and its values are the features'
    /// `id` members when every feature has an integer one, else the 1-based positions. Object
    /// IDs are any 64-bit integers (zero and negative ones included) and must be unique.
    ///
    /// **Geometry.** Features with a `null` geometry are kept. All other geometries must be of
    /// one type; `Point` and `MultiPoint` may mix (the table is a multipoint table and points
    /// become 1-point multipoints), as may `LineString` and `MultiLineString` (polyline), and
    /// `Polygon` and `MultiPolygon` (polygon). A legacy `crs` member naming an EPSG code
    /// (`urn:ogc:def:crs:EPSG::2263`, `EPSG:2263`; CRS84 is 4326) sets the spatial reference,
    /// which is otherwise 4326.
    ///
    /// - Throws: ``/SieveFeatures/FeatureTableError`` —
    ///   ``/SieveFeatures/FeatureTableError/Kind/invalidJSON`` (with the position) for text that is
    ///   not JSON, ``/SieveFeatures/FeatureTableError/Kind/invalidGeoJSON`` for JSON that is not a
    ///   FeatureCollection, ``/SieveFeatures/FeatureTableError/Kind/invalidGeometry``,
    ///   ``/SieveFeatures/FeatureTableError/Kind/mixedGeometryTypes``,
    ///   ``/SieveFeatures/FeatureTableError/Kind/duplicateObjectID``,
    ///   ``/SieveFeatures/FeatureTableError/Kind/conversionFailed`` (a value that does not fit its
    ///   field of `schema`), ``/SieveFeatures/FeatureTableError/Kind/invalidSchema``,
    ///   ``/SieveFeatures/FeatureTableError/Kind/tooManyFields``,
    ///   ``/SieveFeatures/FeatureTableError/Kind/unsupportedSpatialReference``; each names the
    ///   feature (its index in `features` and object ID) and the field when known.
    public static func load(geoJSON text: String, schema: [Field]? = nil) throws(FeatureTableError) -> FeatureTable {
        var text = text
        let result: Result<FeatureTable, FeatureTableError> = text.withUTF8 { buffer in
            Result { () throws(FeatureTableError) -> FeatureTable in
                try StreamingLoader.load(buffer, schema: schema, options: LoadOptions(), expected: .geoJSON).0
            }
        }
        return try result.get()
    }

    /// Loads an Esri JSON FeatureSet: `objectIdFieldName`, `globalIdFieldName`,
    /// `displayFieldName`, `geometryType`, `spatialReference`, `fields` and
    /// `features[{attributes, geometry}]`, with dates as epoch milliseconds.
    ///
    /// The fields are `schema` when given, else the FeatureSet's `fields`, else inferred from
    /// the attributes as ``load(geoJSON:schema:)`` does. The object-ID field is the one
    /// `objectIdFieldName` names, else the field of type OID, else an integer field named
    /// `OBJECTID` (any case); without one, an `OBJECTID` field numbering the features from 1 is
    /// added first. Without `spatialReference` the table is in 4326. A geometry not of the
    /// declared `geometryType` is an error (points are accepted in a multipoint FeatureSet).
    ///
    /// - Throws: ``/SieveFeatures/FeatureTableError`` as ``load(geoJSON:schema:)`` does, with
    ///   ``/SieveFeatures/FeatureTableError/Kind/invalidEsriJSON`` for JSON that is not a
    ///   FeatureSet.
    public static func load(esriJSON text: String, schema: [Field]? = nil) throws(FeatureTableError) -> FeatureTable {
        var text = text
        let result: Result<FeatureTable, FeatureTableError> = text.withUTF8 { buffer in
            Result { () throws(FeatureTableError) -> FeatureTable in
                try StreamingLoader.load(buffer, schema: schema, options: LoadOptions(), expected: .esriJSON).0
            }
        }
        return try result.get()
    }

    /// Loads a file holding a GeoJSON FeatureCollection (a root object with a `type` member,
    /// which must be `"FeatureCollection"`) or else an Esri JSON FeatureSet, telling them apart
    /// by content (see ``load(geoJSON:schema:)`` and ``load(esriJSON:schema:)``).
    ///
    /// A regular file is mapped and read once, its pages handed back as the load moves on (see
    /// ``loadReporting(contentsOfFile:schema:options:)``); its size is not limited here (a
    /// command line reading arguments from files should bound those itself).
    ///
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/unreadableFile`` when the file cannot be
    ///   read, else as the two loaders do.
    public static func load(contentsOf url: URL, schema: [Field]? = nil) throws(FeatureTableError) -> FeatureTable {
        try loadReporting(contentsOfFile: url.path, schema: schema).table
    }

    /// Loads UTF-8 JSON bytes holding a GeoJSON FeatureCollection or else an Esri JSON
    /// FeatureSet, telling them apart by content as ``load(contentsOf:schema:)`` does.
    ///
    /// - Throws: As ``load(geoJSON:schema:)`` and ``load(esriJSON:schema:)`` do;
    ///   ``/SieveFeatures/FeatureTableError/Kind/invalidJSON`` also for bytes that are not UTF-8.
    public static func load<Bytes: Collection<UInt8>>(json bytes: Bytes, schema: [Field]? = nil) throws(FeatureTableError)
        -> FeatureTable
    {
        try loadReporting(json: bytes, schema: schema, options: LoadOptions()).table
    }

    /// Loads UTF-8 JSON bytes as ``load(json:schema:)`` does, with `options` (skipping invalid
    /// features, a geometry type, threads, progress), and reports what was skipped.
    ///
    /// Besides a GeoJSON FeatureCollection and an Esri JSON FeatureSet, the bytes may hold a
    /// single GeoJSON Feature or a GeoJSONSeq (RFC 8142: features one after another, each
    /// optionally after a record separator U+001E, usually one per line). The input is read in
    /// one pass, with no JSON tree of the whole document; inputs of 4 MiB and more are split at
    /// feature boundaries and read on ``LoadOptions/threads`` threads, with results identical to
    /// one thread's. Errors carry the line, column and byte offset as well as the character
    /// position, and are reported in input order: the first problem found is the one reported.
    public static func loadReporting<Bytes: Collection<UInt8>>(
        json bytes: Bytes, schema: [Field]? = nil, options: LoadOptions
    ) throws(FeatureTableError) -> (table: FeatureTable, report: LoadReport) {
        let direct: Result<(FeatureTable, LoadReport), FeatureTableError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(FeatureTableError) -> (FeatureTable, LoadReport) in
                try StreamingLoader.load(buffer, schema: schema, options: options, expected: nil)
            }
        }
        if let direct { return try direct.get() }
        let array = Array(bytes)
        let result: Result<(FeatureTable, LoadReport), FeatureTableError> = array.withUnsafeBufferPointer { buffer in
            Result { () throws(FeatureTableError) -> (FeatureTable, LoadReport) in
                try StreamingLoader.load(buffer, schema: schema, options: options, expected: nil)
            }
        }
        return try result.get()
    }
}
