/// The error thrown when a CQL2 filter cannot be read.
///
/// It says what is wrong and where: the 1-based line and column and the 0-based offset of the
/// problem, counted in `Character`s (so `"\r\n"` is one), as in
/// `cql2-text error at 1:17: expected ')' after the arguments of S_INTERSECTS`.
public struct CQL2Error: Error, Hashable, Sendable, CustomStringConvertible {
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

    /// Creates an error.
    public init(_ encoding: Encoding, _ message: String, line: Int, column: Int, offset: Int) {
        self.encoding = encoding
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// `cql2-text error at line:column: message`.
    public var description: String {
        "\(encoding.rawValue) error at \(line):\(column): \(message)"
    }
}
