// Re-exported: the error's category and location are SieveBase's, and a client of this module
// uses them with the error.
@_exported import SieveBase

/// The error thrown when a CQL2 filter cannot be read.
///
/// It says what is wrong and where: the 1-based line and column and the 0-based offset of the
/// problem, counted in `Character`s (so `"\r\n"` is one), as in
/// `cql2-text error at 1:17: expected ')' after the arguments of S_INTERSECTS`.
///
/// Errors of the JSON encoding also carry the ``path`` of the JSON value at fault, which their
/// description shows instead of the line and column:
/// `cql2-json error at args[1].op: unknown operator "s_near"`.
public struct CQL2Error: GeoSieveError, Hashable {
    /// The encoding being read when the error occurred.
    public enum Encoding: String, Hashable, Sendable {
        /// The text encoding, `cql2-text`.
        case text = "cql2-text"
        /// The JSON encoding, `cql2-json`.
        case json = "cql2-json"
    }

    /// The encoding being read.
    public var encoding: Encoding
    /// What is wrong, in words.
    public var message: String
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column (in `Character`s) of the problem on its line.
    public var column: Int
    /// The 0-based offset (in `Character`s) of the problem from the start of the input.
    public var offset: Int
    /// For the JSON encoding, the path of the JSON value at fault from the root, such as
    /// `args[1].args[0]` (`""` for the root itself); `nil` for the text encoding.
    ///
    /// For JSON the line, column and offset locate the start of that value when the input was
    /// text, and are 0 when it was an already parsed JSON value built in code.
    public var path: String?

    /// The most UTF-8 bytes a message keeps: the parts of the input a message repeats are
    /// excerpts already, and one built from many of them is cut here, with `…`, so that an error
    /// stays a short line. (A path is as long as the value is deep, its member names cut to 80
    /// characters each.)
    public static let maximumMessageBytes = 800

    /// Creates an error; a message longer than ``maximumMessageBytes`` is cut.
    public init(_ encoding: Encoding, _ message: String, line: Int, column: Int, offset: Int, path: String? = nil) {
        self.encoding = encoding
        self.message = Self.cut(message, bytes: Self.maximumMessageBytes)
        self.line = line
        self.column = column
        self.offset = offset
        self.path = path
    }

    /// `text` with at most `bytes` UTF-8 bytes, cut at a character and ended with `…` when cut.
    static func cut(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > bytes - 3 { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// Every CQL2 error is the caller's: the filter does not parse or bind.
    public var category: ErrorCategory { .invalidRequest }

    /// Where in the filter (input `cql2-text` or `cql2-json`): the ``line`` and ``column`` when
    /// known (not 0), and the ``path`` of a JSON value; `nil` for an error found after reading.
    public var inputLocation: InputLocation? {
        let located = line > 0
        guard located || path != nil else { return nil }
        return InputLocation(
            input: encoding.rawValue, line: located ? line : nil, column: located ? column : nil,
            path: path.map { $0.isEmpty ? "the root" : $0 })
    }

    /// `cql2-text error at line:column: message`, or for an error with a ``path``
    /// `cql2-json error at path: message` (`at the root` for the empty path), or for an error
    /// found after reading — binding the filter to a table, whose message quotes the part at
    /// fault — with line 0 and no path, `cql2-text error: message`.
    public var description: String {
        if let path {
            return "\(encoding.rawValue) error at \(path.isEmpty ? "the root" : path): \(message)"
        }
        if line == 0 {
            return "\(encoding.rawValue) error: \(message)"
        }
        return "\(encoding.rawValue) error at \(line):\(column): \(message)"
    }
}
