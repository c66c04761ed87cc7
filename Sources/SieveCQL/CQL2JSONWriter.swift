import SieveGeometry
import SieveJSON

/// Writes a ``CQL2Expression`` as compact cql2-json, refusing (with the path the node would have
/// in the output) the trees that JSON cannot say exactly.
struct CQL2JSONWriter {
    var bytes: [UInt8] = []

    private func fail(_ message: String, _ path: String) -> CQL2Error {
        CQL2Error(.json, "cannot write: \(message)", line: 0, column: 0, offset: 0, path: path)
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `{"op":"name","args":[…]}`.
    private mutating func operation(_ name: String, _ arguments: [CQL2Expression], _ path: String) throws(CQL2Error) {
        append("{\"op\":")
        JSONWriter.writeString(name, into: &bytes)
        append(",\"args\":")
        try list(arguments, CQL2JSONParser.member(path, "args"))
        append("}")
    }

    /// `{"op":"not","args":[{"op":"name","args":[…]}]}` when `negated`, else the plain operation.
    private mutating func predicate(_ name: String, _ arguments: [CQL2Expression], negated: Bool, _ path: String) throws(CQL2Error) {
        guard negated else { return try operation(name, arguments, path) }
        append("{\"op\":\"not\",\"args\":[")
        try operation(name, arguments, CQL2JSONParser.element(CQL2JSONParser.member(path, "args"), 0))
        append("]}")
    }

    private mutating func list(_ items: [CQL2Expression], _ path: String) throws(CQL2Error) {
        append("[")
        for (index, item) in items.enumerated() {
            if index > 0 { append(",") }
            try write(item, path: CQL2JSONParser.element(path, index))
        }
        append("]")
    }

    /// `{"key":` + the string + `}`.
    private mutating func member(_ key: String, _ value: String) {
        append("{")
        JSONWriter.writeString(key, into: &bytes)
        append(":")
        JSONWriter.writeString(value, into: &bytes)
        append("}")
    }

    mutating func write(_ expression: CQL2Expression, path: String) throws(CQL2Error) {
        switch expression {
        case .and(let operands), .or(let operands):
            let name: String
            if case .and = expression { name = "and" } else { name = "or" }
            guard operands.count >= 2 else {
                throw fail("\"\(name)\" needs 2 or more operands, found \(operands.count)", path)
            }
            try operation(name, operands, path)
        case .not(let operand):
            try operation("not", [operand], path)
        case .comparison(let operation, let left, let right):
            try self.operation(operation.rawValue, [left, right], path)
        case .like(let value, let pattern, let negated):
            try predicate("like", [value, pattern], negated: negated, path)
        case .between(let value, let lower, let upper, let negated):
            try predicate("between", [value, lower, upper], negated: negated, path)
        case .inList(let value, let items, let negated):
            guard !items.isEmpty else {
                let inPath = negated ? CQL2JSONParser.element(CQL2JSONParser.member(path, "args"), 0) : path
                let listPath = CQL2JSONParser.element(CQL2JSONParser.member(inPath, "args"), 1)
                throw fail("the list of \"in\" is empty", listPath)
            }
            try predicate("in", [value, .array(items)], negated: negated, path)
        case .isNull(let value, let negated):
            try predicate("isNull", [value], negated: negated, path)
        case .caseInsensitive(let value):
            try operation("casei", [value], path)
        case .accentInsensitive(let value):
            try operation("accenti", [value], path)
        case .spatial(let function, let left, let right):
            try operation(function.jsonName, [left, right], path)
        case .temporal(let function, let left, let right):
            try operation(function.jsonName, [left, right], path)
        case .arrayComparison(let function, let left, let right):
            try operation(function.jsonName, [left, right], path)
        case .function(let name, let arguments):
            if CQL2JSONOperator.byName[name] != nil || CQL2JSONOperator.reservedReason(name) != nil {
                throw fail("the function name \"\(name)\" would read back as an operator", CQL2JSONParser.member(path, "op"))
            }
            try operation(name, arguments, path)
        case .arithmetic(let operation, let left, let right):
            try self.operation(operation.rawValue, [left, right], path)
        case .negate(let operand):
            try operation("-", [operand], path)
        case .property(let name):
            member("property", name)
        case .string(let value):
            JSONWriter.writeString(value, into: &bytes)
        case .integer(let value):
            append(String(value))
        case .real(let value):
            guard value.isFinite else { throw fail("JSON has no number \(value)", path) }
            JSONWriter.writeAttributeDouble(value, into: &bytes)
        case .boolean(let value):
            append(value ? "true" : "false")
        case .date(let value):
            guard CQL2Instant.isDate(value) else {
                throw fail("\"\(value)\" is not a date of the form yyyy-mm-dd", CQL2JSONParser.member(path, "date"))
            }
            member("date", value)
        case .timestamp(let value):
            guard CQL2Instant.isTimestamp(value) else {
                throw fail(
                    "\"\(value)\" is not a timestamp of the form yyyy-mm-ddThh:mm:ss[.fff]Z",
                    CQL2JSONParser.member(path, "timestamp"))
            }
            member("timestamp", value)
        case .interval(let start, let end):
            let intervalPath = CQL2JSONParser.member(path, "interval")
            append("{\"interval\":[")
            try bound(start, CQL2JSONParser.element(intervalPath, 0))
            append(",")
            try bound(end, CQL2JSONParser.element(intervalPath, 1))
            append("]}")
        case .geometry(let geometry):
            let value = Self.geoJSON(geometry)
            guard let reread = try? Geometry(geoJSON: value, path: ""), reread == geometry else {
                throw fail("the geometry has no GeoJSON form that reads back to it", path)
            }
            JSONWriter.write(value, into: &bytes)
        case .bbox(let values):
            let bboxPath = CQL2JSONParser.member(path, "bbox")
            guard values.count == 4 || values.count == 6 else {
                throw fail("a bbox has 4 or 6 numbers, found \(values.count)", bboxPath)
            }
            if let index = values.firstIndex(where: { !$0.isFinite }) {
                throw fail("JSON has no number \(values[index])", CQL2JSONParser.element(bboxPath, index))
            }
            append("{\"bbox\":[")
            for (index, value) in values.enumerated() {
                if index > 0 { append(",") }
                JSONWriter.writeDouble(value, into: &bytes)
            }
            append("]}")
        case .array(let items):
            try list(items, path)
        }
    }

    /// The GeoJSON of a geometry with the rings of polygons in their stored orientation, so that
    /// it reads back to the same geometry (``Geometry/geoJSONValue`` orients outer rings
    /// counter-clockwise, and a filter's polygon read from WKT keeps the orientation written).
    static func geoJSON(_ geometry: Geometry) -> JSONValue {
        switch geometry {
        case .polygon(let polygon) where polygon.partCount > 0:
            let buffer = polygon.coordinates
            let layout = buffer.layout
            func position(_ index: Int) -> JSONValue {
                let point = buffer[index]
                var numbers: [JSONValue] = [.double(point.x), .double(point.y)]
                if layout.hasZ || layout.hasM { numbers.append(.double(point.z ?? 0)) }
                if layout.hasM {
                    let measure = point.m ?? .nan
                    numbers.append(measure.isNaN ? .null() : .double(measure))
                }
                return .array(numbers)
            }
            func rings(ofPart part: Int) -> JSONValue {
                .array(polygon.partRingRange(part).map { ring in .array(polygon.ringRange(ring).map(position)) })
            }
            var object = JSONObject()
            if polygon.partCount == 1 {
                object.append("type", .string("Polygon"))
                object.append("coordinates", rings(ofPart: 0))
            } else {
                object.append("type", .string("MultiPolygon"))
                object.append("coordinates", .array((0..<polygon.partCount).map(rings(ofPart:))))
            }
            return .object(object)
        case .collection(let collection):
            var object = JSONObject()
            object.append("type", .string("GeometryCollection"))
            object.append("geometries", .array(collection.geometries.map(geoJSON)))
            return .object(object)
        default:
            return geometry.geoJSONValue
        }
    }

    private mutating func bound(_ bound: CQL2IntervalBound, _ path: String) throws(CQL2Error) {
        switch bound {
        case .date(let value):
            guard CQL2Instant.isDate(value) else { throw fail("\"\(value)\" is not a date of the form yyyy-mm-dd", path) }
            JSONWriter.writeString(value, into: &bytes)
        case .timestamp(let value):
            guard CQL2Instant.isTimestamp(value) else {
                throw fail("\"\(value)\" is not a timestamp of the form yyyy-mm-ddThh:mm:ss[.fff]Z", path)
            }
            JSONWriter.writeString(value, into: &bytes)
        case .unbounded:
            append("\"..\"")
        case .expression(let expression):
            switch expression {
            case .string, .date, .timestamp:
                throw fail("an interval end given as an expression of a string, date or timestamp reads back as a bound", path)
            default:
                try write(expression, path: path)
            }
        }
    }
}
