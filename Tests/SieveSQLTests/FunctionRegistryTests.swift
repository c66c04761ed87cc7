import SieveColumns
import Testing

@testable import SieveSQL

/// The function registry is the binder's only catalogue: every function the binder accepts by
/// name has an entry, every entry's names bind with the arity, argument types and result type
/// the entry states, and "unknown function" suggests the entries' names.
@Suite("Function registry")
struct FunctionRegistryTests {
    static let schema = SimpleSchema([("S", .string), ("I", .integer), ("D", .double), ("T", .date)])

    /// An operand of each type: columns where there is one (so nothing folds to a constant).
    static let operands: [(sql: String, type: SQLType)] = [
        ("S", .string), ("I", .integer), ("D", .double), ("T", .date), ("(I > 0)", .boolean), ("INTERVAL '1' DAY", .interval),
    ]

    /// Names the parser always reads as a special form, never as a call by name: `TRIM(…)` is
    /// `TRIM([mode] [characters FROM] s)`, with its own errors (see
    /// ``trimFormBindsThroughTheTrimEntries()``).
    static let specialFormNames: Set<String> = ["TRIM"]

    static func bind(_ sql: String) throws(WhereClauseError) -> BoundExpression {
        let binder = Binder(sql: sql, schema: schema, collation: .binary, now: 0)
        return try binder.bindValue(try WhereClause.parse(sql))
    }

    /// The error binding `sql` throws, or `nil` when it binds.
    static func bindingError(_ sql: String) -> WhereClauseError? {
        do {
            _ = try bind(sql)
            return nil
        } catch {
            return error
        }
    }

    /// The first operand a rule accepts (the first one at all when there is no rule).
    static func accepted(by rule: ArgumentRule?) -> (sql: String, type: SQLType)? {
        operands.first { rule?.accepts($0.type) ?? true }
    }

    /// A call with accepted operands for each argument, or `nil` if some argument has none.
    static func call(_ name: String, _ definition: FunctionDefinition, count: Int) -> String? {
        var arguments: [String] = []
        for index in 0..<count {
            guard let operand = accepted(by: definition.rule(forArgument: index)) else { return nil }
            arguments.append(operand.sql)
        }
        return "\(name)(\(arguments.joined(separator: ", ")))"
    }

    @Test func everyFunctionCallableByNameHasAnEntry() {
        let registry = FunctionRegistry.builtin
        for function in BuiltinFunction.allCases {
            let error = Self.bindingError("\(function.rawValue)(NULL)")
            let callable = error?.kind != .unknownFunction
            let inArcGIS = registry.definition(for: function)?.dialects.contains(.arcGIS) ?? false
            #expect(
                callable == inArcGIS,
                "\(function.rawValue): callable by name \(callable), in the registry for ArcGIS SQL \(inArcGIS)")
            if let definition = registry.definition(for: function) {
                #expect(definition.function == function)
                #expect(registry.definition(named: function.rawValue, in: Self.someDialect(of: definition))?.function == function)
                // CQL2's own functions are not ArcGIS SQL's.
                #expect((registry.definition(named: function.rawValue, in: .arcGIS) != nil) == inArcGIS)
            }
        }
        // The special forms' functions are not names of their own.
        for function in [BuiltinFunction.extractYear, .extractSecond, .addMilliseconds, .subtractMilliseconds] {
            #expect(registry.definition(for: function) == nil)
            #expect(Self.bindingError("\(function.rawValue)(NULL)")?.kind == .unknownFunction)
        }
    }

    /// A language that may call `definition` by name: ArcGIS SQL when it may, else CQL2.
    static func someDialect(of definition: FunctionDefinition) -> WhereClauseDialect {
        definition.dialects.contains(.arcGIS) ? .arcGIS : .cql2
    }

    @Test func namesAreUniqueAndResolveInAnyCase() {
        let registry = FunctionRegistry.builtin
        let names = registry.allNames
        #expect(Set(names).count == names.count)
        for definition in registry.definitions {
            for name in definition.names {
                #expect(
                    registry.definition(named: name.lowercased(), in: Self.someDialect(of: definition))?.function == definition.function,
                    "\(name)")
            }
            #expect(!definition.aliases.contains(definition.name))
        }
        #expect(registry.definition(named: "CEIL")?.function == .ceiling)
        #expect(registry.definition(named: "trunc")?.function == .truncate)
        #expect(registry.definition(named: "Character_Length")?.function == .charLength)
    }

    @Test func everyEntryStatesItsPostgreSQLRendering() {
        for definition in FunctionRegistry.builtin.definitions {
            switch definition.postgreSQL {
            case .function(let name):
                #expect(!name.isEmpty && !name.contains(" "), "\(definition.name)")
            case .custom(let note):
                #expect(!note.isEmpty, "\(definition.name)")
            }
        }
        #expect(FunctionRegistry.builtin.definition(for: .log)?.postgreSQL != .function("log"))
    }

    @Test func everyNameBindsWithItsArity() {
        for definition in FunctionRegistry.builtin.definitions where definition.dialects.contains(.arcGIS) {
            for name in definition.names where !Self.specialFormNames.contains(name) {
                let arity = definition.arity
                let plural = arity.upperBound == 1 ? "" : "s"
                let expected = arity.count == 1 ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
                for count in [arity.lowerBound - 1, arity.upperBound + 1] where count >= 0 {
                    guard let sql = Self.call(name, definition, count: count) else { continue }
                    let error = Self.bindingError(sql)
                    #expect(error?.kind == .wrongArgumentCount, "\(sql)")
                    #expect(error?.message == "\(name) takes \(expected) argument\(plural), got \(count)", "\(sql)")
                }
                for count in arity.lowerBound...min(arity.upperBound, arity.lowerBound + 3) {
                    guard let sql = Self.call(name, definition, count: count) else {
                        Issue.record("\(name): no operand fits its rules")
                        continue
                    }
                    do {
                        guard case .function(let function, let arguments, _) = try Self.bind(sql) else {
                            Issue.record("\(sql) did not bind to a function call")
                            continue
                        }
                        #expect(function == definition.function, "\(sql)")
                        #expect(arguments.count == count, "\(sql)")
                    } catch {
                        Issue.record("\(sql): \(error)")
                    }
                }
            }
        }
    }

    @Test func everyArgumentRuleRejectsWhatItSays() {
        for definition in FunctionRegistry.builtin.definitions where definition.dialects.contains(.arcGIS) {
            let name = definition.names.last ?? definition.name
            if Self.specialFormNames.contains(name) { continue }
            let count = definition.arity.lowerBound
            for index in 0..<count {
                guard let rule = definition.rule(forArgument: index) else { continue }
                for operand in Self.operands {
                    var arguments: [String] = []
                    for other in 0..<count {
                        arguments.append(
                            other == index ? operand.sql : (Self.accepted(by: definition.rule(forArgument: other))?.sql ?? "NULL"))
                    }
                    let sql = "\(name)(\(arguments.joined(separator: ", ")))"
                    let error = Self.bindingError(sql)
                    if rule.accepts(operand.type) {
                        #expect(error == nil, "\(sql): \(String(describing: error))")
                    } else {
                        #expect(error?.kind == .typeMismatch, "\(sql)")
                        // "an" before the types whose names start with a vowel.
                        let article = "aeiou".contains("\(operand.type)".first ?? "x") ? "an" : "a"
                        #expect(
                            error?.message == "\(name) expects \(rule.description) as argument \(index + 1), got \(article) \(operand.type) value",
                            "\(sql)")
                    }
                }
                // NULL fits every rule.
                let nulls = Array(repeating: "NULL", count: count).joined(separator: ", ")
                #expect(Self.bindingError("\(name)(\(nulls))") == nil, "\(name)(\(nulls))")
            }
        }
    }

    @Test func argumentRulesAreTheOnesErrorsName() {
        let registry = FunctionRegistry.builtin
        #expect(registry.definition(named: "UPPER")?.rule(forArgument: 0)?.description == "a string")
        #expect(registry.definition(named: "SUBSTRING")?.rule(forArgument: 2)?.description == "a number")
        #expect(registry.definition(named: "CONCAT")?.rule(forArgument: 7)?.description == "a string, number or date")
        #expect(registry.definition(named: "COALESCE")?.rule(forArgument: 0) == nil)
        #expect(Self.bindingError("CONCAT(S, I, D, T, (I > 0))")?.message == "CONCAT expects a string, number or date as argument 5, got a boolean value")
    }

    @Test func everyNameBindsToItsResultType() throws {
        for definition in FunctionRegistry.builtin.definitions where definition.dialects.contains(.arcGIS) {
            for name in definition.names {
                let count = definition.arity.lowerBound
                for operand in Self.operands {
                    // The operand first, the other arguments accepted ones of the same type where they can be.
                    var arguments = [operand.sql]
                    var types = [operand.type]
                    for index in 1..<max(count, 1) {
                        let rule = definition.rule(forArgument: index)
                        let same = rule.map { $0.accepts(operand.type) } ?? true
                        let chosen = same ? operand : Self.accepted(by: rule) ?? operand
                        arguments.append(chosen.sql)
                        types.append(chosen.type)
                    }
                    let sql = "\(name)(\(arguments.joined(separator: ", ")))"
                    guard let bound = try? Self.bind(sql) else { continue }
                    let expected: SQLType
                    switch definition.result {
                    case .fixed(let type): expected = type
                    case .firstArgument: expected = types[0]
                    case .integerWhenAllIntegers: expected = types.allSatisfy { $0 == .integer } ? .integer : .double
                    case .custom: expected = types[0]  // COALESCE and NULLIF of one type keep it
                    }
                    #expect(bound.type == expected, "\(sql)")
                }
            }
        }
        // NULL as the argument whose type the result keeps.
        #expect(try Self.bind("ABS(NULL)").type == .double)
        #expect(try Self.bind("ABS(NULL + I)").type == .integer)
        #expect(try Self.bind("ROUND(NULL, 2)").type == .double)
        #expect(try Self.bind("MOD(I, D)").type == .double)
        #expect(try Self.bind("COALESCE(NULL, I, D)").type == .double)
        #expect(try Self.bind("NULLIF(T, '2024-01-01')").type == .date)
    }

    @Test func unknownFunctionsSuggestRegistryNames() {
        let registry = FunctionRegistry.builtin
        for definition in registry.definitions where definition.dialects.contains(.arcGIS) {
            let misspelled = definition.name + "X"
            let error = Self.bindingError("\(misspelled)(S)")
            #expect(error?.kind == .unknownFunction, "\(misspelled)")
            #expect(error?.message == "unknown function \(misspelled) (did you mean \"\(definition.name)\"?)", "\(misspelled)")
        }
        // Aliases call their function but are not suggested.
        #expect(Set(registry.suggestedNames()) == Set(registry.definitions.filter { $0.dialects.contains(.arcGIS) }.map(\.name)))
        #expect(!registry.suggestedNames().contains("CEIL"))
        #expect(!registry.suggestedNames().contains("CASEI"))
        #expect(registry.suggestedNames(in: .cql2).contains("CASEI"))
        #expect(Self.bindingError("CEILNG(D)")?.message == "unknown function CEILNG (did you mean \"CEILING\"?)")
        #expect(Self.bindingError("CEILX(D)")?.message == "unknown function CEILX")
        // LTRIM and RTRIM are functions, so they are suggestions too.
        #expect(Self.bindingError("LTRM(S)")?.message == "unknown function LTRM (did you mean \"LTRIM\"?)")
        #expect(Self.bindingError("FROB(S)")?.message == "unknown function FROB")
        // The arguments are bound first: an unknown field in an unknown function is reported.
        #expect(Self.bindingError("FROB(NOPE)")?.kind == .unknownField)
    }

    @Test func trimFormBindsThroughTheTrimEntries() throws {
        for (sql, function) in [
            ("TRIM(S)", BuiltinFunction.trimBoth), ("TRIM(LEADING 'x' FROM S)", .trimLeading), ("TRIM(TRAILING FROM S)", .trimTrailing),
            ("LTRIM(S)", .trimLeading), ("RTRIM(S)", .trimTrailing),
        ] {
            guard case .function(let bound, _, let type) = try Self.bind(sql) else {
                Issue.record("\(sql) did not bind to a function call")
                continue
            }
            #expect(bound == function, "\(sql)")
            #expect(type == .string, "\(sql)")
            #expect(FunctionRegistry.builtin.definition(for: function) != nil)
        }
        // The form keeps its own wording.
        #expect(Self.bindingError("TRIM(I)")?.message == "TRIM needs a string, not an integer value")
    }
}

/// The registry's PostgreSQL column and the renderer agree: an entry that says PostgreSQL has a
/// function of the same meaning renders as a call of it, and one that says there is none
/// ("none: …") is refused when rendered.
@Suite("Function registry and the PostgreSQL renderer")
struct FunctionRegistryRenderingTests {
    @Test func everyEntryRendersAsItsRegistryEntrySays() throws {
        let columns = ["\"S\"", "\"I\"", "\"D\"", "\"T\""]
        for definition in FunctionRegistry.builtin.definitions {
            do {
                let dialect = FunctionRegistryTests.someDialect(of: definition)
                let name = definition.names.last ?? definition.name
                if FunctionRegistryTests.specialFormNames.contains(name) { continue }
                guard let call = FunctionRegistryTests.call(name, definition, count: definition.arity.lowerBound) else { continue }
                let sql = "\(call) IS NULL"
                let clause = try CompiledWhereClause(
                    tree: try WhereClause.parse(sql), text: sql, schema: FunctionRegistryTests.schema, dialect: dialect)
                var parameters = PostgreSQLParameters()
                switch definition.postgreSQL {
                case .function(let function):
                    let rendered = try clause.postgreSQL(columns: columns, parameters: &parameters)
                    #expect(rendered.contains("\(function)("), "\(definition.name): \(rendered)")
                case .custom(let note) where note.hasPrefix("none:"):
                    #expect(throws: PostgreSQLRenderingError.self, "\(definition.name)") {
                        try clause.postgreSQL(columns: columns, parameters: &parameters)
                    }
                case .custom:
                    continue
                }
            }
        }
    }
}
