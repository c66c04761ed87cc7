import SieveColumns
import SieveGeometry
import SieveSQL

/// A CQL2 filter as a client sends it: the tree and the encoding it came in, ready to be bound to
/// a table.
///
/// ```swift
/// let filter = try CQL2Filter("pop_est > 1e7 AND S_INTERSECTS(geometry, BBOX(160, -50, -170, 0))")
/// let lowered = try filter.lowered(geometryPropertyNames: ["geometry"])
/// let clause = try lowered.compile(schema: schema)   // reads lowered.geometryTests as fields
/// ```
///
/// Binding goes through the where-clause core: ``lowered(geometryPropertyNames:dateOnlyPropertyNames:)`` rewrites the
/// CQL2 tree into an ``/SieveSQL/SQLExpression`` in the ``/SieveSQL/WhereClauseDialect/cql2``
/// dialect, which the same binder and vectorized evaluator run as an ArcGIS where clause; the
/// spatial functions become ``CQL2GeometryTest``s read as fields. What each construct means there
/// is listed in the SieveCQL documentation ("Semantics").
public struct CQL2Filter: Hashable, Sendable, CustomStringConvertible {
    /// The filter.
    public let expression: CQL2Expression
    /// The encoding it was read from (errors name it).
    public let encoding: CQL2Error.Encoding
    /// The text it was read from, when it was read from text: what a bound clause shows as
    /// its `sql` without writing the tree out again. Not part of equality.
    public let source: String?

    /// A filter built in code (or already parsed), said to come from `encoding`.
    public init(_ expression: CQL2Expression, encoding: CQL2Error.Encoding = .text) {
        self.expression = expression
        self.encoding = encoding
        source = nil
    }

    /// Whether two filters have equal trees and encodings.
    public static func == (a: CQL2Filter, b: CQL2Filter) -> Bool {
        a.expression == b.expression && a.encoding == b.encoding
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(expression)
        hasher.combine(encoding)
    }

    /// Reads a filter in either encoding.
    /// - Parameters:
    ///   - source: The filter: cql2-text, or a cql2-json document.
    ///   - encoding: The encoding; when `nil`, JSON if the first character that is not white
    ///     space is `{`, else text (a text filter never starts with `{`).
    /// - Throws: ``CQL2Error`` pointing at the problem.
    public init(_ source: String, encoding: CQL2Error.Encoding? = nil) throws(CQL2Error) {
        let resolved = encoding ?? (source.first { !$0.isWhitespace } == "{" ? .json : .text)
        switch resolved {
        case .text: expression = try CQL2Text.parse(source)
        case .json: expression = try CQL2JSON.parse(source)
        }
        self.encoding = resolved
        self.source = source
    }

    /// The filter as canonical cql2-text.
    public var description: String { CQL2Text.write(expression) }

    /// The filter rewritten into the where-clause tree.
    /// - Parameters:
    ///   - geometryPropertyNames: The names (any case) by which the filter may name the
    ///     features' geometry; every other property is a field.
    ///   - dateOnlyPropertyNames: The names (any case) of the date-only fields
    ///     (`FieldType/dateOnly` in SieveFeatures): temporal functions take their values as
    ///     whole days, as they take `DATE('…')` literals; other date fields are instants.
    /// - Throws: ``CQL2Error`` for a construct the tree cannot hold: a geometry, `BBOX`,
    ///   `INTERVAL` or array where no spatial, temporal or array function takes it, a property
    ///   that is not the geometry in a spatial function (or the geometry anywhere else), an
    ///   impossible date, timestamp or `BBOX`.
    public func lowered(geometryPropertyNames: Set<String>, dateOnlyPropertyNames: Set<String> = []) throws(CQL2Error)
        -> CQL2LoweredFilter
    {
        var lowering = CQL2Lowering(
            encoding: encoding, geometryNames: Set(geometryPropertyNames.map { $0.lowercased() }),
            dateOnlyNames: Set(dateOnlyPropertyNames.map { $0.lowercased() }))
        let tree = try lowering.lower(expression)
        return CQL2LoweredFilter(filter: self, tree: tree, geometryTests: lowering.geometryTests, sources: lowering.sources)
    }
}

/// A CQL2 filter rewritten into the where-clause tree (``CQL2Filter/lowered(geometryPropertyNames:dateOnlyPropertyNames:)``).
public struct CQL2LoweredFilter: Sendable {
    /// The filter it came from.
    public let filter: CQL2Filter
    /// The where-clause tree, in the ``/SieveSQL/WhereClauseDialect/cql2`` dialect. Its nodes'
    /// ranges number the CQL2 nodes they came from, not text positions.
    public let tree: SQLExpression
    /// The geometry tests the tree reads as fields, in the order their columns follow the
    /// table's (see ``compile(schema:now:)``).
    public let geometryTests: [CQL2GeometryTest]
    /// The CQL2 node each number in the tree's ranges stands for.
    let sources: [CQL2Expression]

    /// Binds the tree to `schema`, whose fields are columns `0..<n`; the geometry tests are
    /// fields too, columns `n + i` for ``geometryTests``[`i`] — the caller appends their 0/1
    /// integer columns to the table's when running the clause.
    ///
    /// The clause compares strings byte for byte (CQL2 is case- and accent-sensitive unless
    /// `CASEI`/`ACCENTI` say otherwise), whatever the table's collation.
    /// - Parameters:
    ///   - schema: The table's fields.
    ///   - now: The instant `CURRENT_TIMESTAMP` stands for (a function a filter may call).
    /// - Throws: ``CQL2Error`` naming the part of the filter at fault (an unknown property,
    ///   operands of different types, an unknown function, …).
    public func compile(schema: any WhereClauseSchema, now: Int64? = nil) throws(CQL2Error) -> CompiledWhereClause {
        // Without geometry tests the table's schema is the whole schema.
        let extended: any WhereClauseSchema =
            geometryTests.isEmpty ? schema : GeometryTestSchema(base: schema, tests: geometryTests.map(\.fieldName))
        do {
            return try CompiledWhereClause(
                tree: tree, text: filter.source ?? filter.description, schema: extended, collation: .binary, dialect: .cql2, now: now)
        } catch {
            throw bindingError(error)
        }
    }

    /// Refuses a geometry literal with a coordinate that is no CRS84 position: a longitude
    /// outside −180…180 or a latitude outside −90…90 (`POINT(90 180)` names latitude 180). For
    /// a filter in CRS84 — the default `filter-crs` — such a literal is an error, as the
    /// standard's conformance tests require, not a geometry that matches nothing.
    /// - Throws: ``CQL2Error`` naming the literal and the coordinate.
    public func validateCRS84Coordinates() throws(CQL2Error) {
        for test in geometryTests {
            switch test.kind {
            case .present: break
            case .relationship(_, let geometry): try Self.validateCRS84(geometry, encoding: filter.encoding)
            case .literals(_, let first, let second):
                try Self.validateCRS84(first, encoding: filter.encoding)
                try Self.validateCRS84(second, encoding: filter.encoding)
            }
        }
    }

    private static func validateCRS84(_ geometry: Geometry, encoding: CQL2Error.Encoding) throws(CQL2Error) {
        let box = geometry.envelope
        let problem: String? =
            if box.ymin < -90 || box.ymax > 90 {
                "latitude \(CQL2TextWriter.coordinate(box.ymin < -90 ? box.ymin : box.ymax)) is outside −90…90"
            } else if box.xmin < -180 || box.xmax > 180 {
                "longitude \(CQL2TextWriter.coordinate(box.xmin < -180 ? box.xmin : box.xmax)) is outside −180…180"
            } else {
                nil
            }
        if let problem {
            throw CQL2Error(encoding, "the geometry \(geometry.wkt) is not in CRS84: \(problem)", line: 0, column: 0, offset: 0)
        }
    }

    /// `error`, about the tree, as an error about the CQL2 node it names.
    private func bindingError(_ error: WhereClauseError) -> CQL2Error {
        var message = error.message
        if let range = error.range, range.lower >= 0, range.lower < sources.count {
            message += " (in \(WhereClauseError.quoted(CQL2Text.write(sources[range.lower]), quote: "")))"
        }
        return CQL2Error(filter.encoding, message, line: 0, column: 0, offset: 0)
    }
}

/// A schema with extra 0/1 integer fields after the base's: the geometry tests' columns.
private struct GeometryTestSchema: WhereClauseSchema {
    let base: any WhereClauseSchema
    let tests: [String: Int]
    let baseCount: Int

    init(base: any WhereClauseSchema, tests: [String]) {
        self.base = base
        baseCount = base.fieldNames.count
        var byName: [String: Int] = [:]
        for (i, name) in tests.enumerated() { byName[name] = baseCount + i }
        self.tests = byName
    }

    func resolveField(_ name: String) -> (index: Int, name: String, type: ColumnType)? {
        if let index = tests[name] { return (index, name, .integer) }
        return base.resolveField(name)
    }

    var fieldNames: [String] { base.fieldNames }
}
