import SieveJSON
import SieveSQL
import Yams

/// A value of a configuration file with its key path and position, read strictly: a mapping
/// names only the keys it may have, a number is a number, a flag is `true` or `false`.
struct ConfigurationNode {
    let node: Node
    /// The key path from the top of the file.
    let key: String
    /// The file's name, for errors.
    let file: String

    /// An error at this value.
    func error(_ message: String) -> ConfigurationError {
        ConfigurationError(file: file, line: node.mark?.line, column: node.mark?.column, key: key, message)
    }

    /// Whether the value is YAML's null (`~`, `null` or nothing).
    var isNull: Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The members of a mapping, in order, each a key of `allowed` (any key with `anyKey`).
    /// - Throws: ``ConfigurationError`` for another value, a key that is not a string, or one
    ///   not allowed (with the closest allowed key).
    func members(allowed: [String], anyKey: Bool = false, what: String) throws(ConfigurationError) -> [(name: String, value: ConfigurationNode)] {
        guard case .mapping(let mapping) = node else { throw error("\(what) must be a mapping of keys to values") }
        var result: [(name: String, value: ConfigurationNode)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                throw ConfigurationNode(node: keyNode, key: key, file: file).error("a key must be text")
            }
            let name = scalar.string
            let path = key.isEmpty ? name : key + "." + name
            guard anyKey || allowed.contains(name) else {
                throw ConfigurationNode(node: keyNode, key: path, file: file).error(
                    "unknown key in \(what)\(WhereClauseError.didYouMean(name, among: allowed)): the keys are \(allowed.joined(separator: ", "))")
            }
            result.append((name, ConfigurationNode(node: value, key: path, file: file)))
        }
        return result
    }

    /// The items of a sequence.
    func items(what: String) throws(ConfigurationError) -> [ConfigurationNode] {
        guard case .sequence(let sequence) = node else { throw error("\(what) must be a list") }
        return sequence.enumerated().map { i, item in ConfigurationNode(node: item, key: "\(key)[\(i)]", file: file) }
    }

    /// A text value (a plain number or flag is taken as written).
    func string() throws(ConfigurationError) -> String {
        guard case .scalar(let scalar) = node, !isNull else { throw error("must be text") }
        return scalar.string
    }

    /// A list of text values, or one text value of comma-separated items.
    func strings() throws(ConfigurationError) -> [String] {
        if case .sequence = node { return try items(what: "the value").map { item throws(ConfigurationError) in try item.string() } }
        return try string().split(separator: ",").map { String($0).trimmedOfSpaces() }.filter { !$0.isEmpty }
    }

    /// A whole number in `range`.
    func int(in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            throw error("must be a whole number, not \(describe)")
        }
        guard range.contains(value) else { throw error("must be \(range.lowerBound) to \(range.upperBound), not \(value)") }
        return value
    }

    /// A finite number in `range`.
    func double(in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Double(scalar.string), value.isFinite else {
            throw error("must be a number, not \(describe)")
        }
        guard range.contains(value) else {
            throw error("must be \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound)), not \(formatNumber(value))")
        }
        return value
    }

    /// `true` or `false`.
    func bool() throws(ConfigurationError) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain, ["true", "false"].contains(scalar.string) else {
            throw error("must be true or false, not \(describe)")
        }
        return scalar.string == "true"
    }

    /// The value as JSON: mappings as objects, sequences as arrays, plain scalars as numbers,
    /// flags or null when they read as such, other scalars as strings.
    func json(depth: Int = 0) throws(ConfigurationError) -> JSONValue {
        guard depth < 64 else { throw error("nested more than 64 levels") }
        switch node {
        case .mapping(let mapping):
            var object = JSONObject()
            for (keyNode, value) in mapping {
                guard case .scalar(let scalar) = keyNode else { throw error("a key must be text") }
                object.append(scalar.string, try ConfigurationNode(node: value, key: key + "." + scalar.string, file: file).json(depth: depth + 1))
            }
            return .object(object)
        case .sequence(let sequence):
            var array: [JSONValue] = []
            for (i, item) in sequence.enumerated() {
                array.append(try ConfigurationNode(node: item, key: "\(key)[\(i)]", file: file).json(depth: depth + 1))
            }
            return .array(array)
        case .scalar(let scalar):
            guard scalar.style == .plain else { return .string(scalar.string) }
            if isNull { return .null() }
            if scalar.string == "true" || scalar.string == "false" { return .bool(scalar.string == "true") }
            if let integer = Int(scalar.string) { return .integer(integer) }
            if let number = Double(scalar.string), number.isFinite { return .double(number) }
            return .string(scalar.string)
        case .alias:
            throw error("aliases are not supported")
        }
    }

    /// The value, shortened, for messages.
    private var describe: String {
        switch node {
        case .scalar(let scalar): JSONKey.quoted(JSONKey.abbreviated(scalar.string))
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmedOfSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
