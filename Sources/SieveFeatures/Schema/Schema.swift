import SieveColumns
import SieveGeometry
import SieveJSON

/// The description of a feature table: its fields in order, which of them is the object ID
/// (and the global ID and display field), the geometry type and the spatial reference.
///
/// Field names are unique ignoring case, and look-ups by name (``field(named:)``,
/// ``index(ofField:)``) ignore case, as ArcGIS does; they return the canonical field.
public struct Schema: Hashable, Sendable {
    /// The fields, in column order.
    public let fields: [Field]
    /// The name of the object-ID field (as spelled in ``fields``).
    public let objectIdFieldName: String
    /// The index of the object-ID field in ``fields``.
    public let objectIdFieldIndex: Int
    /// The name of the global-ID field, if any.
    public let globalIdFieldName: String?
    /// The display field (the one a feature is labelled with), if any.
    public let displayFieldName: String?
    /// The geometry type; `nil` for a table without geometries.
    public let geometryType: GeometryType?
    /// The spatial reference of the geometries.
    public let spatialReference: SpatialReference
    /// The field whose value says a feature's type (Esri `typeIdField`), if any.
    public let typeIdFieldName: String?
    /// The feature types (Esri `types`): each with its ID, domains and templates.
    public let types: [FeatureType]
    /// The layer's own templates (Esri `templates`, used when there are no types).
    public let templates: [FeatureTemplate]
    /// Each lower-cased name, and each name as written, → its index.
    private let indexByName: [String: Int]
    /// ``displayFieldIndex``, decided once (identify labels every hit with it).
    private let displayIndex: Int?

    /// The most fields a schema, and so a table, may have: 1,999.
    ///
    /// With its geometry column, such a table has 2,000 columns, the most SQLite allows a table
    /// by default (`SQLITE_MAX_COLUMN`) and so the most a GeoPackage layer can portably have
    /// (the object-ID field becomes its `fid` column): whatever loads can be written to one.
    /// The limit also bounds what a file with a different property in every feature can make
    /// the loader allocate (each field is a column of one slot per row).
    public static let maximumFieldCount = 1_999

    /// Creates a schema.
    ///
    /// - Throws: ``FeatureTableError/Kind/invalidSchema`` when a field name is empty or repeated
    ///   (ignoring case), the object-ID field is missing or not an integer field, or the
    ///   global-ID or display field does not exist; ``FeatureTableError/Kind/tooManyFields``
    ///   for more than ``maximumFieldCount`` fields.
    public init(
        fields: [Field], objectIdFieldName: String, globalIdFieldName: String? = nil,
        displayFieldName: String? = nil, geometryType: GeometryType? = nil,
        spatialReference: SpatialReference = .wgs84, typeIdFieldName: String? = nil, types: [FeatureType] = [],
        templates: [FeatureTemplate] = []
    ) throws(FeatureTableError) {
        guard fields.count <= Self.maximumFieldCount else {
            throw FeatureTableError(
                .tooManyFields, "\(fields.count) fields; a table holds at most \(Self.maximumFieldCount)")
        }
        var indexByName: [String: Int] = [:]
        indexByName.reserveCapacity(fields.count)
        for (i, field) in fields.enumerated() {
            guard !field.name.isEmpty else {
                throw FeatureTableError(.invalidSchema, "field \(i) has an empty name")
            }
            let key = field.name.lowercased()
            if let previous = indexByName[key] {
                throw FeatureTableError(
                    .invalidSchema,
                    "field name \(JSONKey.quoted(field.name)) repeats \(JSONKey.quoted(fields[previous].name)) (names are compared ignoring case)",
                    fieldName: field.name)
            }
            indexByName[key] = i
        }
        // The names as written too, so that a look-up by a field's own name (the usual case)
        // finds it without lowercasing. No such name is another field's key: names are unique
        // ignoring case.
        for (i, field) in fields.enumerated() where indexByName[field.name] == nil { indexByName[field.name] = i }
        guard let oidIndex = indexByName[objectIdFieldName.lowercased()] else {
            throw FeatureTableError(
                .invalidSchema, "the object-ID field \(JSONKey.quoted(objectIdFieldName)) is not among the fields",
                fieldName: objectIdFieldName)
        }
        guard fields[oidIndex].columnType == .integer else {
            throw FeatureTableError(
                .invalidSchema,
                "the object-ID field must be an integer field, not \(fields[oidIndex].type.name)",
                fieldName: fields[oidIndex].name)
        }
        var resolvedGlobalID: String?
        if let globalIdFieldName, !globalIdFieldName.isEmpty {
            guard let index = indexByName[globalIdFieldName.lowercased()] else {
                throw FeatureTableError(
                    .invalidSchema, "the global-ID field \(JSONKey.quoted(globalIdFieldName)) is not among the fields",
                    fieldName: globalIdFieldName)
            }
            resolvedGlobalID = fields[index].name
        }
        var resolvedDisplay: String?
        if let displayFieldName, !displayFieldName.isEmpty {
            guard let index = indexByName[displayFieldName.lowercased()] else {
                throw FeatureTableError(
                    .invalidSchema, "the display field \(JSONKey.quoted(displayFieldName)) is not among the fields",
                    fieldName: displayFieldName)
            }
            resolvedDisplay = fields[index].name
        }
        var resolvedTypeID: String?
        if let typeIdFieldName, !typeIdFieldName.isEmpty {
            guard let index = indexByName[typeIdFieldName.lowercased()] else {
                throw FeatureTableError(
                    .invalidSchema, "the type-ID field \(JSONKey.quoted(typeIdFieldName)) is not among the fields",
                    fieldName: typeIdFieldName)
            }
            resolvedTypeID = fields[index].name
        } else if !types.isEmpty {
            throw FeatureTableError(.invalidSchema, "feature types need a type-ID field")
        }
        for (i, type) in types.enumerated() where types[..<i].contains(where: { Schema.sameTypeID($0.id, type.id) }) {
            throw FeatureTableError(.invalidSchema, "two feature types have the ID \(type.id)")
        }
        self.fields = fields
        self.objectIdFieldIndex = oidIndex
        self.objectIdFieldName = fields[oidIndex].name
        self.globalIdFieldName = resolvedGlobalID
        self.displayFieldName = resolvedDisplay
        self.geometryType = geometryType
        self.spatialReference = spatialReference
        self.typeIdFieldName = resolvedTypeID
        self.types = types
        self.templates = templates
        self.indexByName = indexByName
        self.displayIndex = Self.displayFieldIndex(fields: fields, displayFieldName: resolvedDisplay, indexByName: indexByName)
    }

    /// The field names, in column order.
    public var fieldNames: [String] { fields.map(\.name) }

    /// The names of the date-only fields (``FieldType/dateOnly``): the fields CQL2's temporal
    /// functions take as whole days and applyEdits writes as `yyyy-mm-dd`.
    public var dateOnlyFieldNames: Set<String> { Set(fields.filter { $0.type == .dateOnly }.map(\.name)) }

    /// The fields as an Esri layer-JSON `fields` array (see ``Field/esriJSON(_:)``).
    public var esriFieldsJSON: String { Field.esriJSON(fields) }

    /// The object-ID field.
    public var objectIdField: Field { fields[objectIdFieldIndex] }

    /// The index of the field named `name` (ignoring case), or `nil`.
    public func index(ofField name: String) -> Int? {
        if let index = indexByName[name] { return index }
        return indexByName[name.lowercased()]
    }

    /// The index of the field a feature is labelled with (identify's `value`, the layer's
    /// `displayField`): ``displayFieldName`` when set; else, among the string fields, the one
    /// named `name` (ignoring case), else the first whose name contains `name`, else the first
    /// whose name contains `title` or `label`, else the first string field — as ArcGIS Pro and
    /// QGIS guess a layer's display field; `nil` when there is no string field.
    public var displayFieldIndex: Int? { displayIndex }

    /// ``displayFieldIndex`` of a schema with these fields.
    private static func displayFieldIndex(fields: [Field], displayFieldName: String?, indexByName: [String: Int]) -> Int? {
        if let displayFieldName, let index = indexByName[displayFieldName.lowercased()] { return index }
        let strings = fields.indices.filter { fields[$0].type == .string }
        let lowered = strings.map { ($0, fields[$0].name.lowercased()) }
        if let exact = lowered.first(where: { $0.1 == "name" }) { return exact.0 }
        if let named = lowered.first(where: { $0.1.contains("name") }) { return named.0 }
        if let titled = lowered.first(where: { $0.1.contains("title") || $0.1.contains("label") }) { return titled.0 }
        return strings.first
    }

    /// The field named `name` (ignoring case), or `nil`.
    public func field(named name: String) -> Field? {
        index(ofField: name).map { fields[$0] }
    }
}

extension FeatureTableError.Kind {
    /// More fields than a table may have (``Schema/maximumFieldCount``): a schema with too many,
    /// or a file whose features carry more distinct properties (the error names the feature
    /// and the property that went over the limit).
    public static let tooManyFields = FeatureTableError.Kind(rawValue: "too many fields")
}

extension FeatureTableError {
    /// See ``Kind/tooManyFields``.
    public static var tooManyFields: Kind { .tooManyFields }
}
