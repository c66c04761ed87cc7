import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveSQL
import SieveJSON

/// What an identify ("what did the user tap?") asks of a ``/SieveFeatures/FeatureTable``: a map
/// point, a tolerance in screen pixels and the map view it was tapped in, after the ArcGIS REST
/// `identify` operation and the Runtime's `identify(on:screenPoint:tolerance:maximumResults:)`.
///
/// The search radius in map units is ``mapTolerance`` = `tolerance × mapExtent.width / width`
/// (map units per pixel, from the extent's width and the view's width); a feature is hit when
/// its geometry lies within that distance of the point — a circle, not a square; a polygon
/// containing the point is hit at distance 0.
///
/// ```swift
/// let click = IdentifyParameters(
///     x: 2.35, y: 48.85, tolerance: 5,
///     mapExtent: Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90), width: 1440, height: 720)
/// let hits = try cities.identify(click)
/// hits.first?.displayValue  // "Paris"
/// ```
public struct IdentifyParameters: Hashable, Sendable {
    /// The point's x, in the table's spatial reference.
    public var x: Double
    /// The point's y, in the table's spatial reference.
    public var y: Double
    /// The search radius in screen pixels, 0…100 (default 3, ArcGIS's default).
    public var tolerance: Double
    /// The map extent shown in the view, in the table's spatial reference; its width must be
    /// positive.
    public var mapExtent: Envelope
    /// The view's width in pixels (> 0).
    public var width: Double
    /// The view's height in pixels (> 0). Only checked: the radius comes from the widths.
    public var height: Double
    /// At most how many features to return, nearest first; 0 for all. Default 1.
    public var maxResults: Int
    /// A where clause limiting which features can be hit (`1=1`, the default, for all).
    public var whereClause: String
    /// Whether results carry their geometries (default `false`).
    public var returnGeometry: Bool
    /// The string collation of the where clause; `nil` for the table's.
    public var collation: Collation?
    /// The field each hit is labelled with (its `value`); `nil` for the table's display field
    /// (``/SieveFeatures/Schema/displayFieldIndex``).
    public var displayFieldName: String?

    /// Creates identify parameters.
    public init(
        x: Double, y: Double, tolerance: Double = 3, mapExtent: Envelope, width: Double, height: Double,
        maxResults: Int = 1, whereClause: String = "1=1", returnGeometry: Bool = false, collation: Collation? = nil,
        displayFieldName: String? = nil
    ) {
        self.x = x
        self.y = y
        self.tolerance = tolerance
        self.mapExtent = mapExtent
        self.width = width
        self.height = height
        self.maxResults = maxResults
        self.whereClause = whereClause
        self.returnGeometry = returnGeometry
        self.collation = collation
        self.displayFieldName = displayFieldName
    }

    /// The search radius in map units: `tolerance × mapExtent.width / width`.
    public var mapTolerance: Double { tolerance * (mapExtent.width / width) }

    /// Checks every parameter: finite coordinates, a tolerance of 0…100, a positive view size,
    /// a map extent with area and a finite width, a finite search radius (``mapTolerance``;
    /// a view a fraction of a pixel wide can make it overflow) and a non-negative `maxResults`.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` saying which parameter is wrong.
    func validate() throws(FeatureTableError) {
        guard x.isFinite, y.isFinite else {
            throw FeatureTableError(.invalidQuery, "the identify point must have finite coordinates")
        }
        guard tolerance.isFinite, tolerance >= 0, tolerance <= 100 else {
            throw FeatureTableError(.invalidQuery, "the tolerance must be 0…100 pixels, not \(tolerance)")
        }
        guard width.isFinite, height.isFinite, width > 0, height > 0 else {
            throw FeatureTableError(
                .invalidQuery, "the view size must be positive, not \(formatNumber(width))×\(formatNumber(height))")
        }
        let e = mapExtent
        guard e.xmin.isFinite, e.ymin.isFinite, e.xmax.isFinite, e.ymax.isFinite, e.xmin < e.xmax, e.ymin < e.ymax else {
            throw FeatureTableError(
                .invalidQuery, "the map extent must be finite with xmin < xmax and ymin < ymax, not \(e)")
        }
        guard (e.xmax - e.xmin).isFinite else {
            throw FeatureTableError(
                .invalidQuery, "the map extent's width (xmax − xmin) must be finite, not \(formatNumber(e.xmax - e.xmin))")
        }
        guard mapTolerance.isFinite else {
            throw FeatureTableError(
                .invalidQuery,
                "the search radius (tolerance × map extent width / view width) must be finite, not "
                    + "\(formatNumber(tolerance)) × \(formatNumber(e.width)) / \(formatNumber(width))")
        }
        guard maxResults >= 0 else {
            throw FeatureTableError(.invalidQuery, "maxResults must not be negative, not \(maxResults)")
        }
    }
}

/// One feature an identify hit: see ``SieveFeatures/FeatureTable/identify(_:)``.
public struct IdentifyResult: Sendable {
    /// The table row.
    public let row: Int
    /// The feature's object ID.
    public let objectID: Int64
    /// The distance from the identify point to the geometry in map units (0 when the point lies
    /// on or inside it).
    public let distance: Double
    /// The display field: the schema's ``/SieveFeatures/Schema/displayFieldName``, or else the
    /// first string field; `nil` when the table has neither.
    public let displayFieldName: String?
    /// The display field's value as text (see
    /// ``SieveFeatures/FeatureTable/displayText(of:dateOnly:)``); empty when there is no display
    /// field.
    public let displayValue: String
    /// Every field's value, in schema order (read from the table when asked for: a map's
    /// identify returns a hit per layer and most callers read a few of them).
    public var attributes: [(name: String, value: ScalarValue)] {
        var values: [(name: String, value: ScalarValue)] = []
        values.reserveCapacity(fieldNames.count)
        for (name, column) in zip(fieldNames, columns) { values.append((name, column[row])) }
        return values
    }
    /// The geometry, when the parameters asked for it.
    public let geometry: Geometry?
    /// The table's field names and columns, for ``attributes``.
    private let fieldNames: [String]
    private let columns: [Column]

    init(
        row: Int, objectID: Int64, distance: Double, displayFieldName: String?, displayValue: String, fieldNames: [String],
        columns: [Column], geometry: Geometry?
    ) {
        self.row = row
        self.objectID = objectID
        self.distance = distance
        self.displayFieldName = displayFieldName
        self.displayValue = displayValue
        self.fieldNames = fieldNames
        self.columns = columns
        self.geometry = geometry
    }
}
