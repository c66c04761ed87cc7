import SieveColumns

/// One entry of a coded-value domain: a stored code and its display name.
public struct CodedValue: Hashable, Sendable {
    /// The display name, e.g. `"Asphalt"`.
    public var name: String
    /// The stored value, e.g. `.integer(1)` or `.string("ASP")`.
    public var code: ScalarValue

    /// Creates a coded value.
    public init(name: String, code: ScalarValue) {
        self.name = name
        self.code = code
    }
}

/// The set of values a field accepts, as Esri layer JSON describes it.
public enum Domain: Hashable, Sendable {
    /// A list of codes with display names (`{"type":"codedValue","name":…,"codedValues":[…]}`).
    case codedValue(name: String, codes: [CodedValue])
    /// An inclusive range (`{"type":"range","name":…,"range":[min,max]}`).
    case range(name: String, min: ScalarValue, max: ScalarValue)

    /// The domain's name.
    public var name: String {
        switch self {
        case .codedValue(let name, _), .range(let name, _, _): name
        }
    }

    /// The display name of a code, when this is a coded-value domain that lists it.
    public func name(forCode code: ScalarValue) -> String? {
        guard case .codedValue(_, let codes) = self else { return nil }
        return codes.first { $0.code == code }?.name
    }
}
