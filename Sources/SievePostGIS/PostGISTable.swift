import SieveFeatures
import SieveGeometry
import SieveSQL

/// A PostGIS table as GeoSieve reads it: its GeoSieve schema, and for each field the PostgreSQL
/// column and how its values become GeoSieve's.
///
/// The object-ID field is the table's integer primary key (or the column named when opening);
/// every other column but the geometry is a field: `smallint`, `integer` and `bigint` as
/// integer fields, `boolean` as a small integer 0/1 (GeoSieve stores booleans so), `real` and
/// `double precision` as doubles, `numeric` as a double (rounded to the nearest double),
/// `date` as a date-only field (a day), `timestamp` and `timestamptz` as dates (instants read in
/// UTC), `uuid` as a GUID (written as Esri writes one: `{8C4B6F7E-…}`, upper case in braces;
/// the global-ID field when the URL names it with `globalid=` or it is named `globalid` in any
/// case), and
/// `text`, `varchar`, `char` and any other type as text (its PostgreSQL text form).
public struct PostGISTable: Sendable, Hashable {
    /// How a column's values are read.
    public enum ColumnKind: String, Sendable, Hashable {
        /// Integers (`int2`, `int4`, `int8`).
        case integer
        /// `boolean`, read as 0/1.
        case boolean
        /// `float4`, `float8`.
        case double
        /// `numeric`, read as the nearest double.
        case numeric
        /// `date`, `timestamp`, `timestamptz`: epoch milliseconds, UTC.
        case instant
        /// Any other type, as text.
        case text
    }

    /// One field's column.
    public struct Column: Sendable, Hashable {
        /// The PostgreSQL column name (also the field's name).
        public let name: String
        /// How its values are read.
        public let kind: ColumnKind
        /// The PostgreSQL type, as `format_type` names it without its modifier (`integer`,
        /// `character varying`, `uuid`, an enum's name…); edits cast text values to it. Empty
        /// when unknown (values are then written as their kind's type).
        public let typeName: String

        /// A column.
        public init(name: String, kind: ColumnKind, typeName: String = "") {
            self.name = name
            self.kind = kind
            self.typeName = typeName
        }
    }

    /// The PostgreSQL schema (namespace) of the table.
    public let namespace: String
    /// The table's name.
    public let name: String
    /// The fields, in the order of ``/SieveFeatures/Schema/fields``: the object ID first.
    public let columns: [Column]
    /// The geometry column, if any.
    public let geometryColumn: String?
    /// The SRID of the geometry column (its spatial reference's WKID); 0 when unknown.
    public let srid: Int
    /// The GeoSieve schema.
    public let schema: Schema
    /// The table's comment (`COMMENT ON TABLE`); empty for none.
    public let description: String
    /// The geometry column's declared type, without dimensions (`POINT`,
    /// `MULTIPOLYGON`, `GEOMETRY`…); edits make a geometry multi for a `MULTI…` column.
    public let geometryTypeName: String
    /// The companion table keeping the features' attachments (`NAME__attach` or `NAME__ATTACH`
    /// in the same schema), if there is one.
    public let attachmentTable: String?

    /// A description from catalogue facts.
    public init(
        namespace: String, name: String, columns: [Column], geometryColumn: String?, srid: Int, schema: Schema, description: String = "",
        geometryTypeName: String = "GEOMETRY", attachmentTable: String? = nil
    ) {
        self.attachmentTable = attachmentTable
        self.namespace = namespace
        self.name = name
        self.columns = columns
        self.geometryColumn = geometryColumn
        self.srid = srid
        self.schema = schema
        self.description = description
        self.geometryTypeName = geometryTypeName
    }

    /// `"namespace"."name"`.
    public func qualifiedName() throws(PostgreSQLRenderingError) -> String {
        try postgreSQLIdentifier(namespace) + "." + postgreSQLIdentifier(name)
    }

    /// The column as the where-clause renderer reads it: the identifier, or an expression giving
    /// GeoSieve's type (`boolean` as 0/1, `numeric` as a double, other types as text), so that
    /// comparisons on plain columns keep using their indexes.
    func conditionExpression(_ column: Column) throws(PostgreSQLRenderingError) -> String {
        let identifier = try postgreSQLIdentifier(column.name)
        switch column.kind {
        case .integer, .double, .instant: return identifier
        case .boolean: return "(\(identifier))::int"
        case .numeric: return "(\(identifier))::float8"
        case .text: return Self.text(identifier, column)
        }
    }

    /// The column as a `SELECT` reads it, in the type the row decoder expects: `int8`,
    /// `float8`, `text`, or `int8` epoch milliseconds for instants.
    func selectExpression(_ column: Column) throws(PostgreSQLRenderingError) -> String {
        let identifier = try postgreSQLIdentifier(column.name)
        switch column.kind {
        case .integer: return "(\(identifier))::int8"
        case .boolean: return "(\(identifier))::int::int8"
        case .double, .numeric: return "(\(identifier))::float8"
        case .instant: return "(round(extract(epoch FROM \(identifier)) * 1000))::int8"
        case .text: return Self.text(identifier, column)
        }
    }

    /// A text column as text; a `uuid` as Esri writes GUIDs and global IDs (upper case, in
    /// braces), so that answers and where clauses see the values an in-memory table holds.
    private static func text(_ identifier: String, _ column: Column) -> String {
        column.typeName == "uuid" ? "('{' || upper((\(identifier))::text) || '}')" : "(\(identifier))::text"
    }

    /// The geometry column's identifier.
    func geometryIdentifier() throws(PostgreSQLRenderingError) -> String {
        guard let geometryColumn else { throw PostgreSQLRenderingError("the table \(name) has no geometry column") }
        return try postgreSQLIdentifier(geometryColumn)
    }

    /// The spatial reference of the geometries.
    public var spatialReference: SpatialReference { srid > 0 ? SpatialReference(wkid: srid) : schema.spatialReference }
}
