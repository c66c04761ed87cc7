import SieveColumns

/// The type of a field, with the Esri JSON names (`esriFieldTypeInteger`, …) as raw values.
///
/// Each type is stored in one of the four column types of SieveColumns (``columnType``):
/// OID, SmallInteger, Integer and BigInteger in 64-bit integer columns, Single and Double in
/// double columns, String, GUID and GlobalID in string columns, Date and DateOnly in
/// epoch-millisecond columns (a DateOnly value is the instant of its day's midnight UTC).
public enum FieldType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The object ID: a unique, non-null integer per feature.
    case oid = "esriFieldTypeOID"
    /// A 16-bit integer (−32768…32767).
    case smallInteger = "esriFieldTypeSmallInteger"
    /// A 32-bit integer.
    case integer = "esriFieldTypeInteger"
    /// A 64-bit integer.
    case bigInteger = "esriFieldTypeBigInteger"
    /// A single-precision number (stored as a double).
    case single = "esriFieldTypeSingle"
    /// A double-precision number.
    case double = "esriFieldTypeDouble"
    /// Text, with an optional maximum length (``Field/length``).
    case string = "esriFieldTypeString"
    /// An instant: milliseconds since 1970-01-01T00:00:00Z.
    case date = "esriFieldTypeDate"
    /// A calendar day without a time of day, stored as the instant of its midnight UTC (a
    /// multiple of 86,400,000 ms). ArcGIS JSON, GeoJSON and CSV write it as `yyyy-mm-dd`; a
    /// where clause compares it as that instant (`DATEONLY = DATE '2022-04-16'`); CQL2's
    /// temporal functions take it as the whole day, as they take `DATE('2022-04-16')`.
    case dateOnly = "esriFieldTypeDateOnly"
    /// A GUID as text, e.g. `{8C4B6F7E-…}`.
    case guid = "esriFieldTypeGUID"
    /// The global ID: a GUID maintained per feature, as text.
    case globalID = "esriFieldTypeGlobalID"

    /// Reads an Esri field type name. Besides the canonical names, `esriFieldTypeLong` (the
    /// JavaScript API's name for a 32-bit integer) and `esriFieldTypeBigInt` are accepted.
    public init?(esriName: String) {
        if let type = FieldType(rawValue: esriName) {
            self = type
            return
        }
        switch esriName {
        case "esriFieldTypeLong": self = .integer
        case "esriFieldTypeBigInt": self = .bigInteger
        default: return nil
        }
    }

    /// The column type values of this field type are stored in.
    public var columnType: ColumnType {
        switch self {
        case .oid, .smallInteger, .integer, .bigInteger: .integer
        case .single, .double: .double
        case .string, .guid, .globalID: .string
        case .date, .dateOnly: .date
        }
    }

    /// The range of values an integer type holds; `nil` for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .smallInteger: Int64(Int16.min)...Int64(Int16.max)
        case .integer: Int64(Int32.min)...Int64(Int32.max)
        case .oid, .bigInteger: Int64.min...Int64.max
        default: nil
        }
    }

    /// The short name, e.g. `Integer`, as error messages use it.
    public var name: String { String(rawValue.dropFirst("esriFieldType".count)) }

    /// The Esri name, e.g. `esriFieldTypeInteger`.
    public var description: String { rawValue }
}

/// Which field types an Esri JSON document may declare, after the ArcGIS release it claims.
///
/// ArcGIS 11.2 added `esriFieldTypeBigInteger` and `esriFieldTypeDateOnly` (with
/// `esriFieldTypeTimeOnly` and `esriFieldTypeTimestampOffset`, which GeoSieve does not have).
/// A client written for an earlier release does not know them: QGIS 3.22 and GDAL 3.6 drop or
/// misread such a field. A document that claims an earlier release declares them as that
/// release would have stored them.
public enum EsriFieldTypes: Sendable, Hashable, CaseIterable {
    /// Every type, as ArcGIS 11.2 and later publish them: the default.
    case all
    /// The types of ArcGIS before 11.2: a 64-bit integer field is declared
    /// `esriFieldTypeDouble` (its values stay exact integers in JSON; a client that reads them as
    /// doubles rounds those beyond 2⁵³), and a date-only field `esriFieldTypeDate`, its days
    /// written as the epoch milliseconds of their midnight UTC.
    case before11_2

    /// The type `type` is declared as.
    public func declared(_ type: FieldType) -> FieldType {
        switch (self, type) {
        case (.before11_2, .bigInteger): .double
        case (.before11_2, .dateOnly): .date
        default: type
        }
    }

}

/// The geometry type of a table, with the Esri JSON names (`esriGeometryPoint`, …) as raw
/// values. A table holds geometries of one type only.
public enum GeometryType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Points (GeoJSON `Point`).
    case point = "esriGeometryPoint"
    /// Multipoints (GeoJSON `MultiPoint`, and `Point` when mixed with it).
    case multipoint = "esriGeometryMultipoint"
    /// Polylines (GeoJSON `LineString` and `MultiLineString`).
    case polyline = "esriGeometryPolyline"
    /// Polygons (GeoJSON `Polygon` and `MultiPolygon`).
    case polygon = "esriGeometryPolygon"
    /// Envelopes (Esri JSON only).
    case envelope = "esriGeometryEnvelope"

    /// The Esri name, e.g. `esriGeometryPolygon`.
    public var description: String { rawValue }
}
