import SieveFeatures
import SieveFormats
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveProjection
import SieveJSON

/// The checks an edit's values and geometry pass before anything is stored.
enum EditValidation {
    /// `value` as the field's stored type, or the reason it cannot be.
    ///
    /// Integers go into integer fields within the type's range (a double only when it is a whole
    /// number), numbers into Single and Double fields (Single within ±3.4028235e38), strings into
    /// String, GUID and GlobalID fields (at most the field's length in UTF-16 code units, as
    /// Esri's clients count; a GUID as `{8-4-4-4-12}` hexadecimal digits), epoch milliseconds
    /// (a date or an integer) into Date fields. Domains and NULL are checked separately.
    static func convert(_ value: ScalarValue, to field: Field) throws(EditError) -> ScalarValue {
        func wrongType(_ what: String) -> EditError {
            EditError(
                .wrongType, "\(what) cannot be stored in field \(field.name) of type \(field.type.name)", fieldName: field.name)
        }
        switch (field.type.columnType, value) {
        case (_, .null):
            return .null
        case (.integer, .integer(let integer)):
            return .integer(try integerInRange(integer, field: field))
        case (.integer, .double(let double)):
            guard let integer = ValueConversion.exactInt64(double) else {
                if double.isFinite, double == double.rounded() {
                    throw outOfRange(double.description, field: field)
                }
                throw wrongType("the number \(double)")
            }
            return .integer(try integerInRange(integer, field: field))
        case (.double, .integer(let integer)):
            return try checkedDouble(Double(integer), text: "\(integer)", field: field)
        case (.double, .double(let double)):
            guard double.isFinite else { throw wrongType("the number \(double)") }
            return try checkedDouble(double, text: "\(double)", field: field)
        case (.string, .string(let string)):
            if let length = field.length, length > 0, string.utf16.count > length {
                throw EditError(
                    .tooLong,
                    "the value of field \(field.name) is \(string.utf16.count) characters long; the field holds at most \(length)",
                    fieldName: field.name)
            }
            if field.type == .guid || field.type == .globalID, !isGUID(string) {
                throw wrongType("the string \(JSONKey.quoted(string)) (not a GUID such as {8C4B6F7E-1A2B-4C3D-9E8F-0123456789AB})")
            }
            return .string(string)
        case (.date, .date(let milliseconds)), (.date, .integer(let milliseconds)):
            if field.type == .dateOnly, !CivilTime.isMidnight(milliseconds) {
                throw wrongType("the instant \(CivilTime.format(milliseconds: milliseconds)) (a DateOnly field holds days: yyyy-mm-dd, or an instant at midnight UTC)")
            }
            return .date(milliseconds)
        case (_, .string(let string)):
            throw wrongType("the string \(JSONKey.quoted(string))")
        case (_, .boolean(let bool)):
            throw wrongType("the boolean \(bool)")
        case (_, .date(let milliseconds)):
            throw wrongType("the date \(milliseconds)")
        case (_, .integer(let integer)):
            throw wrongType("the integer \(integer)")
        case (_, .double(let double)):
            throw wrongType("the number \(double)")
        }
    }

    private static func outOfRange(_ text: String, field: Field) -> EditError {
        let range: String
        switch field.type {
        case .single: range = "-3.4028235e38 to 3.4028235e38"
        default:
            let bounds = field.type.integerRange ?? Int64.min...Int64.max
            range = "\(bounds.lowerBound) to \(bounds.upperBound)"
        }
        // Esri's client wording (layers/support/fieldUtils.js).
        return EditError(
            .outOfRange,
            "Value \(text) is out of range for the number type - field: \(field.name), type: \(field.type.rawValue), value range is \(range)",
            fieldName: field.name)
    }

    private static func integerInRange(_ value: Int64, field: Field) throws(EditError) -> Int64 {
        if let range = field.type.integerRange, !range.contains(value) { throw outOfRange("\(value)", field: field) }
        return value
    }

    private static func checkedDouble(_ value: Double, text: String, field: Field) throws(EditError) -> ScalarValue {
        if field.type == .single, abs(value) > Double(Float.greatestFiniteMagnitude) { throw outOfRange(text, field: field) }
        return .double(value)
    }

    /// Whether `string` is a GUID in braces: `{` 8-4-4-4-12 hexadecimal digits `}`.
    static func isGUID(_ string: String) -> Bool {
        let bytes = Array(string.utf8)
        guard bytes.count == 38, bytes[0] == UInt8(ascii: "{"), bytes[37] == UInt8(ascii: "}") else { return false }
        for (i, byte) in bytes.enumerated().dropFirst().dropLast() {
            if i == 9 || i == 14 || i == 19 || i == 24 {
                guard byte == UInt8(ascii: "-") else { return false }
                continue
            }
            let isHex = (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
            guard isHex else { return false }
        }
        return true
    }

    /// Checks a non-null stored value against the field's domain.
    static func checkDomain(_ value: ScalarValue, field: Field, domain: Domain) throws(EditError) {
        switch domain {
        case .codedValue(let name, let codes):
            guard codes.contains(where: { equalForDomain($0.code, value) }) else {
                let listed = codes.prefix(20).map(\.code.description).joined(separator: ", ")
                throw EditError(
                    .outsideDomain,
                    "\(value) is not a code of domain \(JSONKey.quoted(name)) of field \(field.name) (codes: \(listed)\(codes.count > 20 ? ", …" : ""))",
                    fieldName: field.name)
            }
        case .range(let name, let min, let max):
            guard let low = number(min), let high = number(max), let x = number(value) else { return }
            guard x >= low, x <= high else {
                throw EditError(
                    .outsideDomain,
                    "\(value) is outside the range domain \(JSONKey.quoted(name)) of field \(field.name) (\(min) to \(max))",
                    fieldName: field.name)
            }
        }
    }

    /// Whether a domain code and a stored value are the same value (an integer code matches the
    /// equal double and the reverse, as codes are read from JSON numbers).
    private static func equalForDomain(_ code: ScalarValue, _ value: ScalarValue) -> Bool {
        if code == value { return true }
        if let a = number(code), let b = number(value) { return a == b }
        return false
    }

    private static func number(_ value: ScalarValue) -> Double? {
        switch value {
        case .integer(let x), .date(let x): Double(x)
        case .double(let x): x
        default: nil
        }
    }

    /// Whether a geometry of `kind` may be stored in a table of `type`.
    static func accepts(_ type: GeometryType, _ kind: Geometry.Kind) -> Bool {
        switch (type, kind) {
        case (.point, .point), (.multipoint, .multipoint), (.polyline, .polyline), (.polygon, .polygon),
            (.envelope, .envelope):
            true
        default: false
        }
    }

    /// The geometry as the table stores it: checked against the table's geometry type,
    /// projected from `spatialReference` when it differs from the table's, and checked for
    /// validity (polygons and polylines, when `validates`).
    static func geometry(
        _ geometry: Geometry, spatialReference: SpatialReference?, schema: Schema, validates: Bool, repairs: Bool = false
    ) throws(EditError) -> Geometry {
        guard let type = schema.geometryType else {
            throw EditError(.wrongGeometryType, "the table has no geometries, but the edit gives a \(geometry.kind)")
        }
        guard accepts(type, geometry.kind) else {
            throw EditError(
                .wrongGeometryType, "a \(geometry.kind) cannot be stored in a table of \(type.rawValue) geometries")
        }
        var stored = geometry
        if let source = spatialReference, source != schema.spatialReference {
            do throws(ProjectionError) {
                stored = try Projector(from: source, to: schema.spatialReference).project(geometry)
            } catch {
                throw EditError(
                    .wrongSpatialReference,
                    "the geometry is in wkid \(source.wkid) and cannot be projected into the table's wkid \(schema.spatialReference.wkid): \(error.message)"
                )
            }
        }
        guard validates, geometry.kind == .polygon || geometry.kind == .polyline else { return stored }
        let validity: Validity
        let repaired: Geometry?
        do throws(GEOSError) {
            (validity, repaired) = try GEOSContext.withCurrent { context throws(GEOSError) in
                let geos = try GEOSGeometry(stored, context: context)
                let validity = try geos.validity()
                return (validity, !validity.isValid && repairs ? try geos.madeValid() : nil)
            }
        } catch {
            // A shape GEOS would need seconds to check (``ValidityCost``) is refused, not checked.
            if error.kind == .tooComplex { throw EditError(.invalidGeometry, "the geometry is too complex to validate: \(error.message)") }
            throw EditError(.invalidGeometry, "GEOS cannot read or repair the geometry: \(error.message)")
        }
        if let repaired {
            guard accepts(type, repaired.kind), !repaired.isEmpty else {
                throw EditError(
                    .invalidGeometry,
                    "the geometry is not valid (\(validity.reason ?? "no reason given")) and its repair is \(repaired.isEmpty ? "empty" : "a \(repaired.kind)"), not a \(geometry.kind)")
            }
            return repaired
        }
        guard validity.isValid else {
            var message = "the geometry is not valid: \(validity.reason ?? "no reason given")"
            if let location = validity.location { message += " at (\(location.x), \(location.y))" }
            throw EditError(.invalidGeometry, message)
        }
        return stored
    }
}
