import SieveFeatures

/// The text formats a ``/SieveFeatures/FeatureQueryResult`` is written in.
public enum FeatureOutputFormat: String, Sendable, Hashable, CaseIterable {
    /// A GeoJSON FeatureCollection (RFC 7946): ``SieveFeatures/FeatureQueryResult/geoJSON``.
    case geoJSON = "geojson"
    /// GeoJSON Text Sequences (RFC 8142, as GDAL's GeoJSONSeq driver writes them): one GeoJSON
    /// Feature per line, the same object a ``geoJSON`` collection holds, each followed by a line
    /// feed (and preceded by the RS character, U+001E, with
    /// ``FeatureWriterOptions/recordSeparator``).
    ///
    /// RFC 8142 features are RFC 7946 features: coordinates in WGS 84 longitude and latitude.
    /// A Feature has no place for the legacy `crs` member a collection carries, so a result in
    /// another spatial reference is written as it is, with nothing naming its reference: ask
    /// for ``/SieveFeatures/QueryParameters/outSpatialReference`` 4326 to get what readers expect.
    /// The page's ``/SieveFeatures/FeatureQueryResult/exceededTransferLimit`` has no place either
    /// and is not written.
    case geoJSONSeq = "geojsonseq"
    /// An Esri JSON FeatureSet, the ArcGIS REST query response:
    /// ``SieveFeatures/FeatureQueryResult/esriJSON``.
    case esriJSON = "esrijson"
    /// Comma-separated values (RFC 4180 with line-feed line ends):
    /// ``SieveFeatures/FeatureQueryResult/csv(options:)``.
    case csv
}

/// How a ``/SieveFeatures/FeatureQueryResult`` is written: layout and coordinate precision.
///
/// ```swift
/// let options = FeatureWriterOptions(pretty: true, coordinatePrecision: 6)
/// let text = result.text(.geoJSON, options: options)
/// ```
public struct FeatureWriterOptions: Sendable, Hashable {
    /// Whether JSON is indented: every member and array element on its own line, two spaces
    /// per level, `": "` after member names; arrays holding only numbers and nulls (positions,
    /// object-ID lists) stay on one line (`[1.5, 2]`), empty objects and arrays are `{}` and
    /// `[]`. The pretty text is the same JSON value as the compact one. GeoJSONSeq and CSV
    /// ignore it (a GeoJSONSeq record must be one line).
    public var pretty: Bool

    /// At most how many digits follow the decimal point in geometry coordinates (x, y, z and
    /// m, in every text format); `nil` (the default) writes each coordinate in the shortest
    /// text that reads back to the same double.
    ///
    /// A coordinate is rounded from its exact binary value to the nearest multiple of 10⁻ᴺ,
    /// ties to even, as C's `printf("%.Nf")` rounds; trailing zeros and a trailing point are
    /// dropped, and a value that rounds to zero is written `0` (never `-0`). The number is
    /// written in full, never in exponent form: 1e300 is written as its 301 exact digits.
    /// Attribute values and extents are not rounded. Values above 17 are taken as 17 and
    /// negative values as 0.
    public var coordinatePrecision: Int?

    /// GeoJSONSeq only: whether each record starts with the RS character (U+001E), as RFC 8142
    /// requires; `false` (the default, as GDAL's default) writes newline-delimited features.
    public var recordSeparator: Bool

    /// Whether whole coordinates are written with a fraction (`180.0`, as Python and GDAL write
    /// them) rather than without (`180`, the default); only when ``coordinatePrecision`` is
    /// `nil`.
    public var wholeCoordinatesWithFraction: Bool

    /// Whether a GeoJSON or Esri JSON write of a table loaded from a file of that format (a
    /// FeatureCollection or a FeatureSet) keeps the file's own shape rather than the query
    /// output's — how edits are saved:
    ///
    /// - the root object's other members (`name`, `crs`, `bbox`; `objectIdFieldName`, `fields`,
    ///   `spatialReference`, …) are written as the file had them, in its order;
    /// - a feature's members come in the order of the file's first feature;
    /// - object IDs stay where they came from: an `OBJECTID` attribute stays a property, ids
    ///   read from GeoJSON `id` members are written as `id` (and an added feature gets its new
    ///   object ID as `id`), and object IDs that numbered the features are written nowhere;
    ///   a field the loader added (the `OBJECTID` field, or the `id` field holding ids that are
    ///   not object IDs, written back as `id`) is not written as an attribute;
    /// - properties the file wrote as booleans are written `true`/`false`, and those it wrote
    ///   as arrays or objects as JSON rather than as text.
    ///
    /// Other tables (and other formats) are written as without it. Give it the rows of
    /// `FeatureTable.savedFeatures()` to keep the file's feature order.
    public var keepsFileRepresentation: Bool

    /// Esri JSON only: geometries as integer cells of a grid (the ArcGIS REST API's
    /// `quantizationParameters`), `nil` (the default) for coordinates as numbers.
    ///
    /// The FeatureSet then carries a `transform` member after `spatialReference`
    /// (`{"originPosition":"upperLeft","scale":[t,t,0,0],"translate":[x,y,0,0]}`), and each
    /// geometry holds cells (``CoordinateQuantization``): a point its cells
    /// (`{"x":12,"y":40}`); a multipoint, path or ring its first position's cells, then each
    /// following position as the difference from the one before (`[[12,40],[3,-1],[0,2]]`),
    /// as the ArcGIS API for JavaScript reads them. Geometries are x and y only.
    /// ``coordinatePrecision`` does not apply. GeoJSON, GeoJSONSeq and CSV ignore it.
    public var quantization: CoordinateQuantization?

    /// Esri JSON only: which field types the `fields` array declares,
    /// ``/SieveFeatures/EsriFieldTypes/all`` (the default) or those of ArcGIS before 11.2, for a
    /// service that claims an earlier release. With
    /// ``/SieveFeatures/EsriFieldTypes/before11_2`` a 64-bit integer field is declared
    /// `esriFieldTypeDouble` and a date-only field `esriFieldTypeDate`, whose values are then
    /// the epoch milliseconds of the day's midnight UTC rather than `"yyyy-mm-dd"`.
    public var esriFieldTypes: EsriFieldTypes

    /// The most digits ``coordinatePrecision`` can ask for: 17.
    public static let maximumCoordinatePrecision = 17

    /// Creates options; the defaults write compact JSON with shortest round-trip coordinates.
    public init(pretty: Bool = false, coordinatePrecision: Int? = nil, recordSeparator: Bool = false) {
        self.pretty = pretty
        self.coordinatePrecision = coordinatePrecision
        self.recordSeparator = recordSeparator
        wholeCoordinatesWithFraction = false
        keepsFileRepresentation = false
        quantization = nil
        esriFieldTypes = .all
    }

    /// How coordinates are written.
    var coordinateFormat: CoordinateFormat {
        guard let coordinatePrecision else { return wholeCoordinatesWithFraction ? .shortestWithFraction : .shortest }
        return .fixed(fractionDigits: Swift.min(Swift.max(coordinatePrecision, 0), Self.maximumCoordinatePrecision))
    }
}
