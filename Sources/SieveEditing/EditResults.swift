import SieveFeatures
import SieveFormats
import SieveBase
import SieveColumns
import SieveGeometry
import SieveJSON

/// A feature to add, or what an update changes.
///
/// Attributes are keyed by field name (matched ignoring case, as everywhere in a schema) and
/// converted to the field's type when the edit is validated; ``/SieveColumns/ScalarValue/null``
/// stores NULL. For an update, ``objectID`` (or else the object-ID attribute, as in the REST shape)
/// names the feature, only the fields given change, and a `nil` geometry keeps the feature's
/// geometry.
public struct FeatureEdit: Sendable {
    /// For an update: the feature's object ID (`nil`: the object-ID attribute names it). An
    /// object-ID attribute that differs from it is an attempt to change the object ID.
    public var objectID: Int64?
    /// Field name → value.
    public var attributes: [String: ScalarValue]
    /// The geometry (for an update: the new geometry, or `nil` to keep the current one).
    public var geometry: Geometry?
    /// The spatial reference of ``geometry``; `nil` means the table's. Another one is projected
    /// into the table's when PROJ can (else the edit fails with
    /// ``EditError/Kind/wrongSpatialReference``).
    public var spatialReference: SpatialReference?

    /// Creates an edit.
    public init(
        objectID: Int64? = nil, attributes: [String: ScalarValue] = [:], geometry: Geometry? = nil,
        spatialReference: SpatialReference? = nil
    ) {
        self.objectID = objectID
        self.attributes = attributes
        self.geometry = geometry
        self.spatialReference = spatialReference
    }
}

extension FeatureEdit {
    /// The feature an update names in a table of `schema`: ``objectID``, else its object-ID
    /// attribute (converted as any value of that field).
    /// - Throws: ``EditError`` (missing object ID) when it names none, or the attribute is not an
    ///   object ID.
    package func namedObjectID(in schema: Schema) throws(EditError) -> Int64 {
        if let objectID { return objectID }
        let oidField = schema.objectIdField
        guard let key = attributes.first(where: { schema.index(ofField: $0.key) == schema.objectIdFieldIndex }) else {
            throw EditError(.missingObjectID, "the update gives no \(oidField.name) to name the feature", fieldName: oidField.name)
        }
        guard case .integer(let id) = (try? EditValidation.convert(key.value, to: oidField)) ?? .null else {
            throw EditError(.missingObjectID, "the update's \(oidField.name) is \(key.value), not an object ID", fieldName: oidField.name)
        }
        return id
    }
}

/// Why one edit of a batch failed, in the ArcGIS REST shape `{"code":…,"description":…}`.
///
/// ``kind`` says what went wrong in a form to test against; ``code`` is the number the REST
/// response carries: 1000 for a value, geometry or field the table rejects, 1003 for an edit
/// rolled back because another edit of its batch failed, 1019 for an object ID the table does
/// not have, 403 for an edit the table's capabilities or ownership rules do not permit.
public struct EditError: GeoSieveKindedError, Hashable {
    /// The category of an ``EditError``.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = EditError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An attribute names no field of the table.
        public static let unknownField = Kind(rawValue: "unknown field")
        /// Two attributes of one edit name the same field (ignoring case).
        public static let repeatedField = Kind(rawValue: "repeated field")
        /// A value of a type the field cannot hold.
        public static let wrongType = Kind(rawValue: "wrong type")
        /// A number outside the field type's range (SmallInteger, Integer, Single).
        public static let outOfRange = Kind(rawValue: "out of range")
        /// A string longer than the field's length.
        public static let tooLong = Kind(rawValue: "too long")
        /// NULL in a field that is not nullable.
        public static let nullNotAllowed = Kind(rawValue: "null not allowed")
        /// A value outside the field's coded-value or range domain.
        public static let outsideDomain = Kind(rawValue: "outside domain")
        /// A geometry of another type than the table's, or one for a table without geometries.
        public static let wrongGeometryType = Kind(rawValue: "wrong geometry type")
        /// A geometry in a spatial reference that cannot be projected into the table's.
        public static let wrongSpatialReference = Kind(rawValue: "wrong spatial reference")
        /// A geometry that is not valid (GEOS's reason in the description).
        public static let invalidGeometry = Kind(rawValue: "invalid geometry")
        /// A value for a field that is not editable.
        public static let notEditable = Kind(rawValue: "not editable")
        /// An update or delete of an object ID the table does not have (or an update without one).
        public static let missingObjectID = Kind(rawValue: "missing object ID")
        /// An update whose attributes give another object ID than the feature's.
        public static let objectIDChanged = Kind(rawValue: "object ID changed")
        /// A feature updated or deleted twice in one batch.
        public static let repeatedObjectID = Kind(rawValue: "repeated object ID")
        /// An edit the table's capabilities do not allow (Create, Update, Delete), or a geometry
        /// update where geometry updates are not allowed.
        public static let notAllowed = Kind(rawValue: "not allowed")
        /// An update or delete of a feature the editing user does not own, where ownership-based
        /// access control forbids it.
        public static let notOwner = Kind(rawValue: "not owner")
        /// An add or update whose feature would not satisfy the definition expression of the
        /// layer the edit came through (``EditingOptions/definitionExpression``).
        public static let outsideDefinition = Kind(rawValue: "outside definition")
        /// An edit that was valid but not applied because another edit of the batch failed and
        /// the batch rolled back.
        public static let rolledBack = Kind(rawValue: "rolled back")
        /// A valid edit the store holding the features refused (a database's constraint or
        /// trigger, say): its reason in the description.
        public static let refusedByStore = Kind(rawValue: "refused by the store")
    }

    /// What went wrong.
    public var kind: Kind
    /// The REST error code (see the type's description).
    public var code: Int
    /// The REST error description: what is wrong, naming the field and value.
    public var message: String
    /// The field concerned, when there is one.
    public var fieldName: String?

    /// Creates an error; the code follows from the kind.
    public init(_ kind: Kind, _ message: String, fieldName: String? = nil) {
        self.kind = kind
        self.message = message
        self.fieldName = fieldName
        switch kind {
        case .rolledBack: code = 1003
        case .missingObjectID: code = 1019
        case .notAllowed, .notOwner: code = 403
        default: code = 1000
        }
    }

    /// What a valid edit reports when another edit of its batch failed and the batch rolled back
    /// (code 1003).
    package static let batchRolledBack = EditError(.rolledBack, "Operation rolled back: another edit of the batch failed.")

    /// How the error is reported when an edit is answered on its own (not as one result of a
    /// batch): ``/SieveBase/ErrorCategory/notFound`` for an object ID or attachment the table does
    /// not have, ``/SieveBase/ErrorCategory/forbidden`` for an edit the capabilities or ownership
    /// rules do not permit, ``/SieveBase/ErrorCategory/conflict`` for an edit rolled back with its
    /// batch, ``/SieveBase/ErrorCategory/invalidRequest`` for a value, field or geometry the table
    /// refuses.
    public var category: ErrorCategory {
        switch kind {
        case .missingObjectID, .missingAttachment: .notFound
        case .notAllowed, .notOwner: .forbidden
        case .rolledBack: .conflict
        default: .invalidRequest
        }
    }
}

/// The result of one edit, as ArcGIS REST reports it: `{"objectId":…,"globalId":…,"success":…}`
/// with an `error` when it failed.
public struct FeatureEditResult: Hashable, Sendable {
    /// The feature's object ID (-1 for an add that failed, as ArcGIS reports it).
    public var objectID: Int64
    /// The feature's global ID, when the table has a GlobalID field and the feature one.
    public var globalID: String?
    /// Why the edit failed; `nil` when it succeeded.
    public var error: EditError?

    /// Creates a result.
    public init(objectID: Int64, globalID: String? = nil, error: EditError? = nil) {
        self.objectID = objectID
        self.globalID = globalID
        self.error = error
    }

    /// Whether the edit was applied.
    public var success: Bool { error == nil }

    /// The REST JSON object.
    package var jsonValue: JSONValue {
        var object = JSONObject()
        object.append("objectId", .number(JSONNumber(objectID)))
        if let globalID { object.append("globalId", .string(globalID)) }
        object.append("success", .bool(error == nil))
        if let error {
            object.append(
                "error", .object(JSONObject([("code", .number(JSONNumber(Int64(error.code)))), ("description", .string(error.message))])))
        }
        return .object(object)
    }
}

/// What ``EditableFeatureTable/applyEdits(adds:updates:deletes:rollbackOnFailure:user:)``
/// returns: one result per add, update and delete, in the order given.
public struct ApplyEditsResult: Hashable, Sendable {
    /// One result per add.
    public var addResults: [FeatureEditResult]
    /// One result per update.
    public var updateResults: [FeatureEditResult]
    /// One result per delete.
    public var deleteResults: [FeatureEditResult]

    /// Creates a result.
    public init(addResults: [FeatureEditResult] = [], updateResults: [FeatureEditResult] = [], deleteResults: [FeatureEditResult] = []) {
        self.addResults = addResults
        self.updateResults = updateResults
        self.deleteResults = deleteResults
    }

    /// Whether every edit was applied.
    public var allSucceeded: Bool {
        addResults.allSatisfy(\.success) && updateResults.allSatisfy(\.success) && deleteResults.allSatisfy(\.success)
    }

    /// The REST response: `{"addResults":[…],"updateResults":[…],"deleteResults":[…]}`.
    public var json: String {
        JSONWriter.string(
            .object(
                JSONObject([
                    ("addResults", .array(addResults.map(\.jsonValue))),
                    ("updateResults", .array(updateResults.map(\.jsonValue))),
                    ("deleteResults", .array(deleteResults.map(\.jsonValue))),
                ])))
    }
}
