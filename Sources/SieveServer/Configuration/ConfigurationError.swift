import SieveBase

/// What is wrong with a service configuration file, and where: the file, the line and column,
/// and the key (`services.world.layers[1].definitionExpression`).
///
/// Its description reads as a compiler's: `services.yaml:12:7: services.world.layers[1].minScale: …`.
public struct ConfigurationError: GeoSieveError, Hashable {
    /// The file (as given).
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The 1-based column, when known.
    public var column: Int?
    /// The key, as a path from the top of the file; empty for the file as a whole.
    public var key: String
    /// What is wrong.
    public var message: String

    /// An error at `key` of `file`.
    public init(file: String, line: Int? = nil, column: Int? = nil, key: String, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// A bad configuration is an invalid request: the server does not start (or keeps its
    /// configuration).
    public var category: ErrorCategory { .invalidRequest }

    /// The file, line, column and key.
    public var inputLocation: InputLocation? { InputLocation(input: file, line: line, column: column, path: key) }

    /// `file:line:column: key: message`.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        text += ": "
        if !key.isEmpty { text += key + ": " }
        return text + message
    }
}
