import SieveColumns

/// One attribute field of a table: its name, type and the metadata Esri layer JSON carries.
public struct Field: Hashable, Sendable, CustomStringConvertible {
    /// The name, unique in its schema ignoring case.
    public var name: String
    /// The display name (the name when none is given).
    public var alias: String
    /// The type.
    public var type: FieldType
    /// The maximum length of a String field's values, when known (not enforced on load).
    public var length: Int?
    /// Whether the field may hold NULL (never for the object-ID field).
    public var nullable: Bool
    /// Whether the field may be edited.
    public var editable: Bool
    /// The value new features get, when one is defined.
    public var defaultValue: ScalarValue?
    /// The values the field accepts, when restricted.
    public var domain: Domain?

    /// Creates a field. `alias` defaults to the name; the object-ID field is never nullable
    /// nor editable.
    public init(
        name: String, type: FieldType, alias: String? = nil, length: Int? = nil, nullable: Bool = true,
        editable: Bool = true, defaultValue: ScalarValue? = nil, domain: Domain? = nil
    ) {
        self.name = name
        self.alias = alias ?? name
        self.type = type
        self.length = length
        self.nullable = type == .oid ? false : nullable
        self.editable = type == .oid ? false : editable
        self.defaultValue = defaultValue
        self.domain = domain
    }

    /// The column type the field's values are stored in.
    public var columnType: ColumnType { type.columnType }

    /// `name (Type)`.
    public var description: String { "\(name) (\(type.name))" }
}
