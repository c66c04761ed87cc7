import SieveFeatures
import SieveEditing
import SieveFormats
import SieveMap

/// One table the server publishes: an ArcGIS FeatureServer service (with the table as its
/// layer 0) at `/arcgis/rest/services/{id}/FeatureServer` and an OGC API collection at
/// `/ogc/collections/{id}`.
///
/// Reads go through ``layer`` over the editable table's published snapshot, so a query never
/// sees half an edit batch; edits are serialized by the ``/SieveEditing/EditableFeatureTable``.
public struct ServedTable: Sendable {
    /// The service name and collection id: letters, digits, `_`, `-` and `.`, at most 128.
    public let id: String
    /// The human title (the layer name and collection title).
    public var title: String
    /// A description for the service and collection documents.
    public var description: String
    /// The table, edited in place when the server allows edits.
    public let table: EditableFeatureTable
    /// The layer the answers come from: its definition expression (if any) limits them, its
    /// renderer is the layer's `drawingInfo`.
    public let layer: FeatureLayer
    /// The layer's time, when it is time-aware: the ArcGIS `timeInfo`, what `time` and OGC
    /// `datetime` select by.
    public let time: LayerTime?
    /// Runs edits one batch at a time, each saved (when a saver is given) before the next.
    let editor: TableEditor

    /// Publishes `table` under `id`; with the server's ``ServerConfiguration/allowEdits``, edits
    /// change it as its ``/SieveEditing/EditingOptions`` allow and `save` (when given) persists
    /// each batch before it is answered (a failed save undoes the batch). `time` makes the
    /// layer time-aware (``LayerTime``).
    /// - Throws: ``ServerRequestError`` (bad request) for an id that is empty, too long or has
    ///   other characters than letters, digits, `_`, `-`, `.` (or is `.`/`..`).
    public init(
        id: String, title: String? = nil, description: String = "", table: EditableFeatureTable,
        renderer: Renderer? = nil, definitionExpression: String? = nil, time: LayerTime? = nil,
        save: TableSaver? = nil
    ) throws {
        guard Self.isValidID(id) else {
            throw ServerRequestError(
                .badRequest,
                "\(RequestParameters.quoted(id)) is not a usable service name: use 1 to 128 letters, digits, '_', '-' or '.'")
        }
        self.id = id
        self.title = title ?? id
        self.description = description
        self.table = table
        var layer = FeatureLayer(source: table, name: title ?? id, renderer: renderer)
        if let definitionExpression { try layer.setDefinitionExpression(definitionExpression) }
        self.layer = layer
        self.time = time
        editor = TableEditor(table: table, save: save)
    }

    /// Whether `id` can name a service: 1 to 128 ASCII letters, digits, `_`, `-`, `.`, and not
    /// `.` or `..` (so it can never walk a path).
    public static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 128, id != ".", id != ".." else { return false }
        return id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
    }

    /// `text` made into a usable id: other characters become `_`, cut at 128 (`table` when
    /// nothing is left).
    public static func sanitizedID(_ text: String) -> String {
        var id = String(
            text.unicodeScalars.prefix(128).map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-.".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        if id.isEmpty || id == "." || id == ".." { id = "table" }
        return id
    }
}

/// The tables a server publishes, by id, in the order given.
public struct ServedCatalog: Sendable {
    /// The tables, in the order given.
    public let tables: [ServedTable]
    private let byID: [String: Int]

    /// A catalog of `tables`.
    /// - Throws: ``ServerRequestError`` (bad request) when two tables share an id, or none is given.
    public init(_ tables: [ServedTable]) throws(ServerRequestError) {
        guard !tables.isEmpty else { throw ServerRequestError(.badRequest, "no table to serve") }
        var byID: [String: Int] = [:]
        for (i, table) in tables.enumerated() {
            if byID[table.id] != nil {
                throw ServerRequestError(
                    .badRequest, "two tables are named \(RequestParameters.quoted(table.id)): name them apart with SOURCE:NAME")
            }
            byID[table.id] = i
        }
        self.tables = tables
        self.byID = byID
    }

    /// The table named `id`.
    /// - Throws: ``ServerRequestError`` (not found) naming it.
    public func table(_ id: String, what: String) throws(ServerRequestError) -> ServedTable {
        guard let index = byID[id] else {
            throw ServerRequestError(.notFound, "\(what) \(RequestParameters.quoted(id)) does not exist")
        }
        return tables[index]
    }
}
