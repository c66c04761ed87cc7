import SieveFeatures
import SieveFormats
import Foundation

/// What a table lets clients do, as the `capabilities` string of Esri layer JSON lists it.
public struct TableCapabilities: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The bits of the set.
    public let rawValue: Int
    /// A set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Queries (`Query`).
    public static let query = TableCapabilities(rawValue: 1)
    /// Adding features (`Create`).
    public static let create = TableCapabilities(rawValue: 2)
    /// Updating features (`Update`).
    public static let update = TableCapabilities(rawValue: 4)
    /// Deleting features (`Delete`).
    public static let delete = TableCapabilities(rawValue: 8)
    /// Everything.
    public static let all: TableCapabilities = [.query, .create, .update, .delete]

    /// Whether any edit is allowed (Esri's `Editing`, present when Create, Update or Delete is).
    public var allowsEditing: Bool { !isDisjoint(with: [.create, .update, .delete]) }

    /// The Esri string, e.g. `Query,Create,Update,Delete,Editing`.
    public var description: String {
        var names: [String] = []
        if contains(.query) { names.append("Query") }
        if contains(.create) { names.append("Create") }
        if contains(.update) { names.append("Update") }
        if contains(.delete) { names.append("Delete") }
        if allowsEditing { names.append("Editing") }
        return names.joined(separator: ",")
    }

    /// Reads an Esri capabilities string (names separated by commas, any case; `Editing` alone
    /// grants Create, Update and Delete; unknown names such as `Sync` are ignored).
    public init(esriString: String) {
        var capabilities: TableCapabilities = []
        var editing = false
        for name in esriString.split(separator: ",") {
            switch name.trimmingCharacters(in: .whitespaces).lowercased() {
            case "query": capabilities.insert(.query)
            case "create": capabilities.insert(.create)
            case "update": capabilities.insert(.update)
            case "delete": capabilities.insert(.delete)
            case "editing": editing = true
            default: break
            }
        }
        if editing, !capabilities.allowsEditing { capabilities.formUnion([.create, .update, .delete]) }
        self = capabilities
    }
}

/// Editor tracking (Esri `editFieldsInfo`) and ownership-based access control (Esri
/// `ownershipBasedAccessControlForFeatures`).
///
/// The table fills the named fields itself: the creator and creation date when a feature is
/// added, the editor and edit date when it is added or updated, dates in UTC epoch milliseconds.
/// With ownership-based access control, a user may update or delete a feature they created
/// (its creator field holds their name, compared ignoring case); others may only when the
/// matching `allowOthersTo…` flag is set, and an anonymous editor (no user) only when the
/// `allowAnonymousTo…` flag is.
public struct EditorTracking: Hashable, Sendable {
    /// The field receiving the user who added a feature.
    public var creatorField: String?
    /// The field receiving when a feature was added.
    public var creationDateField: String?
    /// The field receiving the user who last edited a feature.
    public var editorField: String?
    /// The field receiving when a feature was last edited.
    public var editDateField: String?
    /// Whether ownership-based access control applies.
    public var ownershipBasedAccessControl: Bool
    /// Whether users may update features others created.
    public var allowOthersToUpdate: Bool
    /// Whether users may delete features others created.
    public var allowOthersToDelete: Bool
    /// Whether users see features others created.
    public var allowOthersToQuery: Bool
    /// Whether an editor without a user name may update features.
    public var allowAnonymousToUpdate: Bool
    /// Whether an editor without a user name may delete features.
    public var allowAnonymousToDelete: Bool

    /// Creates editor tracking; ownership-based access control is off unless asked for.
    public init(
        creatorField: String? = nil, creationDateField: String? = nil, editorField: String? = nil,
        editDateField: String? = nil, ownershipBasedAccessControl: Bool = false, allowOthersToUpdate: Bool = true,
        allowOthersToDelete: Bool = true, allowOthersToQuery: Bool = true, allowAnonymousToUpdate: Bool = true,
        allowAnonymousToDelete: Bool = true
    ) {
        self.creatorField = creatorField
        self.creationDateField = creationDateField
        self.editorField = editorField
        self.editDateField = editDateField
        self.ownershipBasedAccessControl = ownershipBasedAccessControl
        self.allowOthersToUpdate = allowOthersToUpdate
        self.allowOthersToDelete = allowOthersToDelete
        self.allowOthersToQuery = allowOthersToQuery
        self.allowAnonymousToUpdate = allowAnonymousToUpdate
        self.allowAnonymousToDelete = allowAnonymousToDelete
    }

    /// The tracking fields that are set (the table fills them; clients may not).
    var fields: [String] { [creatorField, creationDateField, editorField, editDateField].compactMap { $0 } }
}

/// How an ``EditableFeatureTable`` edits: what it allows, what it fills in, how it checks.
public struct EditingOptions: Sendable {
    /// What clients may do (all by default).
    public var capabilities: TableCapabilities
    /// Whether updates may change geometries (Esri `allowGeometryUpdates`).
    public var allowGeometryUpdates: Bool
    /// Editor tracking and ownership, when the table has them.
    public var editorTracking: EditorTracking?
    /// Whether `rollbackOnFailure: false` is honoured (Esri
    /// `supportsRollbackOnFailureParameter`); when not, every batch rolls back on a failure.
    public var supportsRollbackOnFailureParameter: Bool
    /// Whether the table keeps attachments (Esri `hasAttachments`).
    public var hasAttachments: Bool
    /// Whether polygons and polylines are checked for validity (GEOS) before they are stored.
    public var validatesGeometry: Bool
    /// Whether an invalid polygon or polyline is repaired by GEOS (`makeValid`, the structure
    /// method) and stored repaired, instead of failing its edit; a geometry nothing survives of,
    /// or that becomes another type, still fails.
    public var makeValid: Bool
    /// The clock of editor tracking: now, in epoch milliseconds (UTC).
    public var now: @Sendable () -> Int64
    /// The global IDs given to new features: a random UUID in braces, upper-case, as Esri
    /// writes them.
    public var makeGlobalID: @Sendable () -> String
    /// The definition expression of the layer edits come through (`nil` or blank for none): a
    /// where clause every feature edited must satisfy, as a service layer with a definition
    /// query refuses edits that leave it. A feature outside it cannot be updated or deleted (it
    /// does not exist for the layer: ``EditError/Kind/missingObjectID``, code 1019), and an add
    /// or update whose feature would be outside it fails with
    /// ``EditError/Kind/outsideDefinition`` (code 1000). Checked when the table is made
    /// editable; NULL counts as outside, as in every where clause.
    public var definitionExpression: String?

    /// Creates options; every argument has the permissive default.
    public init(
        capabilities: TableCapabilities = .all, allowGeometryUpdates: Bool = true, editorTracking: EditorTracking? = nil,
        supportsRollbackOnFailureParameter: Bool = true, hasAttachments: Bool = false, validatesGeometry: Bool = true,
        makeValid: Bool = false,
        now: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
        makeGlobalID: @escaping @Sendable () -> String = { "{" + UUID().uuidString.uppercased() + "}" },
        definitionExpression: String? = nil
    ) {
        self.capabilities = capabilities
        self.allowGeometryUpdates = allowGeometryUpdates
        self.editorTracking = editorTracking
        self.supportsRollbackOnFailureParameter = supportsRollbackOnFailureParameter
        self.hasAttachments = hasAttachments
        self.validatesGeometry = validatesGeometry
        self.makeValid = makeValid
        self.now = now
        self.makeGlobalID = makeGlobalID
        self.definitionExpression = definitionExpression
    }
}
