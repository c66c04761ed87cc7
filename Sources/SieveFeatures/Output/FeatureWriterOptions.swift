/// The text formats a ``FeatureQueryResult`` is written in.
public enum FeatureOutputFormat: String, Sendable, Hashable, CaseIterable {
    /// A GeoJSON FeatureCollection (RFC 7946): ``FeatureQueryResult/geoJSON``.
    case geoJSON = "geojson"
    /// GeoJSON Text Sequences (RFC 8142, as GDAL's GeoJSONSeq driver writes them): one GeoJSON
    /// Feature per line, the same object a ``geoJSON`` collection holds, each followed by a line
    /// feed (and preceded by the RS character, U+001E, with
    /// ``FeatureWriterOptions/recordSeparator``).
    ///
    /// RFC 8142 features are RFC 7946 features: coordinates in WGS 84 longitude and latitude.
    /// A Feature has no place for the legacy `crs` member a collection carries, so a result in
    /// another spatial reference is written as it is, with nothing naming its reference: ask
    /// for ``QueryParameters/outSpatialReference`` 4326 to get what readers expect. The page's
    /// ``FeatureQueryResult/exceededTransferLimit`` has no place either and is not written.
    case geoJSONSeq = "geojsonseq"
    /// An Esri JSON FeatureSet, the ArcGIS REST query response: ``FeatureQueryResult/esriJSON``.
    case esriJSON = "esrijson"
    /// Comma-separated values (RFC 4180 with line-feed line ends):
    /// ``FeatureQueryResult/csv(options:)``.
    case csv
}

/// How a ``FeatureQueryResult`` is written: layout and coordinate precision.
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

    /// The most digits ``coordinatePrecision`` can ask for: 17.
    public static let maximumCoordinatePrecision = 17

    /// Creates options; the defaults write compact JSON with shortest round-trip coordinates.
    public init(pretty: Bool = false, coordinatePrecision: Int? = nil, recordSeparator: Bool = false) {
        self.pretty = pretty
        self.coordinatePrecision = coordinatePrecision
        self.recordSeparator = recordSeparator
    }

    /// How coordinates are written.
    var coordinateFormat: CoordinateFormat {
        guard let coordinatePrecision else { return .shortest }
        return .fixed(fractionDigits: Swift.min(Swift.max(coordinatePrecision, 0), Self.maximumCoordinatePrecision))
    }
}
