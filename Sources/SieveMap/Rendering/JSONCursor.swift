import SieveGeometry
import SieveJSON

/// A JSON value with the path that leads to it from the value being read, so that every error
/// reading renderer JSON names the member at fault (`uniqueValueInfos[2].symbol.color[3]`) and
/// the character where it starts.
struct JSONCursor {
    /// The value.
    let value: JSONValue
    /// The path from the root (empty for the root).
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    /// Parses JSON text into a root cursor.
    static func parse(_ text: String) throws(RendererError) -> JSONCursor {
        do {
            return JSONCursor(try JSONReader.parse(text))
        } catch {
            throw RendererError(.invalidJSON, error.message, path: error.path, position: error.position)
        }
    }

    /// The path of member `key` of this value.
    func path(of key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// An error about this value.
    func error(_ message: String, kind: RendererError.Kind = .invalidRenderer) -> RendererError {
        RendererError(kind, message, path: path.isEmpty ? nil : path, position: value.position)
    }

    /// This value as an object, or an error naming what it is instead.
    func object(_ what: String) throws(RendererError) -> JSONObject {
        guard let object = value.objectValue else { throw error("\(what) must be an object, not \(value.kindDescription)") }
        return object
    }

    /// This value's elements, or an error naming what it is instead.
    func elements() throws(RendererError) -> [JSONCursor] {
        guard let elements = value.arrayValue else { throw error("expected an array, found \(value.kindDescription)") }
        return elements.enumerated().map { JSONCursor($1, path: path + "[\($0)]") }
    }

    /// Member `key` when present and not `null`.
    func member(_ key: String) -> JSONCursor? {
        guard let member = value[key], !member.isNull else { return nil }
        return JSONCursor(member, path: path(of: key))
    }

    /// Member `key`, which must be present and not `null`.
    func required(_ key: String) throws(RendererError) -> JSONCursor {
        guard let member = member(key) else {
            throw RendererError(
                .invalidRenderer, "the member \(JSONKey.quoted(key)) is missing", path: path(of: key), position: value.position)
        }
        return member
    }

    /// This value as a string.
    func string() throws(RendererError) -> String {
        guard let string = value.stringValue else { throw error("expected a string, found \(value.kindDescription)") }
        return string
    }

    /// This value as a finite number.
    func number() throws(RendererError) -> Double {
        guard let number = value.doubleValue else { throw error("expected a number, found \(value.kindDescription)") }
        guard number.isFinite else { throw error("the number is too large") }
        return number
    }

    /// This value as a boolean.
    func bool() throws(RendererError) -> Bool {
        guard let bool = value.boolValue else { throw error("expected true or false, found \(value.kindDescription)") }
        return bool
    }

    /// Member `key` as a string, `nil` when absent or `null`.
    func optionalString(_ key: String) throws(RendererError) -> String? {
        guard let member = member(key) else { return nil }
        return try member.string()
    }

    /// Member `key` as a finite number, `nil` when absent or `null`.
    func optionalNumber(_ key: String) throws(RendererError) -> Double? {
        guard let member = member(key) else { return nil }
        return try member.number()
    }
}

/// Builds JSON objects for output, leaving out `nil` members.
struct JSONObjectBuilder {
    private(set) var object = JSONObject()

    mutating func add(_ key: String, _ value: JSONValue) { object.append(key, value) }

    mutating func add(_ key: String, string: String?) {
        if let string { object.append(key, .string(string)) }
    }

    mutating func add(_ key: String, number: Double?) {
        if let number { object.append(key, .double(number)) }
    }

    var value: JSONValue { .object(object) }
}
