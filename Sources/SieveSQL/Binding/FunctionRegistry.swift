/// The functions of the where-clause language that are called by name, in one table: the
/// binder looks names up here, checks arity and argument types as an entry says, and takes
/// the "unknown function" suggestions from the same entries, so a function cannot be known
/// to one and not the other.
///
/// `EXTRACT(field FROM date)` and `date ± INTERVAL …` bind to built-in functions that have no
/// name of their own (``BuiltinFunction/extractYear``, ``BuiltinFunction/addMilliseconds``, …)
/// and are not here; the `TRIM([mode] [characters FROM] s)` form binds through the `TRIM`,
/// `LTRIM` and `RTRIM` entries (the name `TRIM` always starts that form), and `POSITION(a IN b)` and `SUBSTRING(s FROM i FOR n)` are
/// parsed into ordinary calls.
struct FunctionRegistry: Sendable {
    /// The entries, in the order "did you mean" considers their names.
    let definitions: [FunctionDefinition]
    private let byName: [String: Int]
    private let byFunction: [BuiltinFunction: Int]

    /// A registry of `definitions`; names (canonical and aliases, upper case) and built-in
    /// functions must each appear once.
    init(_ definitions: [FunctionDefinition]) {
        self.definitions = definitions
        var byName: [String: Int] = [:]
        var byFunction: [BuiltinFunction: Int] = [:]
        for (index, definition) in definitions.enumerated() {
            for name in definition.names {
                precondition(name == name.uppercased(), "function name \(name) is not upper case")
                precondition(byName.updateValue(index, forKey: name) == nil, "function name \(name) registered twice")
            }
            precondition(
                byFunction.updateValue(index, forKey: definition.function) == nil,
                "built-in function \(definition.function) registered twice")
        }
        self.byName = byName
        self.byFunction = byFunction
    }

    /// The entry a name (any case, canonical or alias) calls in `dialect`, if any.
    func definition(named name: String, in dialect: WhereClauseDialect = .arcGIS) -> FunctionDefinition? {
        byName[name.uppercased()].map { definitions[$0] }.flatMap { $0.dialects.contains(dialect) ? $0 : nil }
    }

    /// The entry that binds to `function`, if it is one called by name.
    func definition(for function: BuiltinFunction) -> FunctionDefinition? {
        byFunction[function].map { definitions[$0] }
    }

    /// The names an unknown function's "did you mean" chooses from in `dialect`: every
    /// entry's canonical name, in registry order (aliases are not suggested).
    func suggestedNames(in dialect: WhereClauseDialect = .arcGIS) -> [String] {
        definitions.filter { $0.dialects.contains(dialect) }.map(\.name)
    }

    /// Every name that calls a function, canonical names and aliases.
    var allNames: [String] { definitions.flatMap(\.names) }
}

/// One function called by name.
struct FunctionDefinition: Sendable {
    /// The canonical name, upper case; the one "did you mean" suggests.
    let name: String
    /// Other names for the same function (`CEIL` for `CEILING`).
    let aliases: [String]
    /// What the call binds to.
    let function: BuiltinFunction
    /// How many arguments it takes.
    let arity: ClosedRange<Int>
    /// The type rule of each argument by position; the last rule also covers any further
    /// arguments. Empty when ``result`` is ``ResultRule/custom(_:)`` and it checks them.
    let arguments: [ArgumentRule]
    /// The result type.
    let result: ResultRule
    /// How the function is written in PostgreSQL: `CompiledWhereClause.postgreSQL` renders a
    /// ``PostgreSQLRendering/function(_:)`` entry as a call of that name, and translates or
    /// refuses a ``PostgreSQLRendering/custom(_:)`` one as its note says (a note starting with
    /// "none:" is refused).
    let postgreSQL: PostgreSQLRendering
    /// The languages that may call it by name; CQL2's own functions are not ArcGIS SQL's.
    var dialects: Set<WhereClauseDialect> = [.arcGIS, .cql2]

    /// The canonical name followed by the aliases.
    var names: [String] { [name] + aliases }

    /// The rule argument `index` must satisfy, if any.
    func rule(forArgument index: Int) -> ArgumentRule? {
        guard let last = arguments.last else { return nil }
        return index < arguments.count ? arguments[index] : last
    }
}

/// What an argument must be. NULL is accepted wherever a rule is.
struct ArgumentRule: Sendable {
    /// The phrase errors use: "\(name) expects \(description) as argument n".
    let description: String
    let accepts: @Sendable (SQLType) -> Bool

    static let string = ArgumentRule(description: "a string") { $0 == .string }
    static let number = ArgumentRule(description: "a number") { $0.isNumeric }
    /// `CONCAT`'s operands: anything that has a text form.
    static let stringNumberOrDate = ArgumentRule(description: "a string, number or date") { $0 != .interval && $0 != .boolean }
}

/// How a call's result type follows from its arguments.
enum ResultRule: Sendable {
    /// Always this type.
    case fixed(SQLType)
    /// The first argument's type (`ABS`, `ROUND`, …); a double when it is NULL.
    case firstArgument
    /// An integer when every argument is one, else a double (`MOD`).
    case integerWhenAllIntegers
    /// A special form that checks its operands and makes its bound expression itself (after
    /// the arity check): given the binder, the bound arguments, their nodes and the call's node.
    case custom(
        @Sendable (Binder, [BoundExpression], [SQLExpression], SQLExpression) throws(WhereClauseError) -> BoundExpression)
}

/// How a function is written in PostgreSQL's SQL.
enum PostgreSQLRendering: Sendable, Equatable {
    /// PostgreSQL's function of this name takes the same arguments and gives the same answers.
    case function(String)
    /// No function of PostgreSQL matches as is; the text says what a translation must do.
    case custom(String)
}

extension FunctionRegistry {
    /// The built-in functions of the where-clause language.
    static let builtin = FunctionRegistry([
        FunctionDefinition(
            name: "CHAR_LENGTH", aliases: ["CHARACTER_LENGTH"], function: .charLength, arity: 1...1,
            arguments: [.string], result: .fixed(.integer),
            postgreSQL: .function("char_length")),
        FunctionDefinition(
            name: "CONCAT", aliases: [], function: .concat, arity: 1...255,
            arguments: [.stringNumberOrDate], result: .fixed(.string),
            postgreSQL: .custom(
                "none: PostgreSQL's concat skips NULLs, here any NULL makes NULL: chain || over the operands cast to text, "
                    + "with doubles in shortest round-trip form (whole numbers keep .0) and dates as yyyy-mm-dd[ hh:mi:ss]")),
        FunctionDefinition(
            name: "POSITION", aliases: [], function: .position, arity: 2...2,
            arguments: [.string, .string], result: .fixed(.integer),
            postgreSQL: .custom("strpos(b, a): the arguments swap; or POSITION(a IN b)")),
        FunctionDefinition(
            name: "SUBSTRING", aliases: [], function: .substring, arity: 2...3,
            arguments: [.string, .number, .number], result: .fixed(.string),
            postgreSQL: .custom(
                "none: substring(s FROM i [FOR n]) needs integer start and length: doubles truncate toward zero here, "
                    + "and a negative length is an error in PostgreSQL")),
        FunctionDefinition(
            name: "UPPER", aliases: [], function: .upper, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .custom("none: PostgreSQL's upper follows the database's locale (ASCII only under C); GeoSieve maps every Unicode letter")),
        FunctionDefinition(
            name: "LOWER", aliases: [], function: .lower, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .custom("none: PostgreSQL's lower follows the database's locale (ASCII only under C); GeoSieve maps every Unicode letter")),
        FunctionDefinition(
            // `TRIM(` always starts the TRIM form, which checks its operands itself and binds
            // to this entry, LTRIM's or RTRIM's; the arity and rule here are the one-argument
            // call's, as LTRIM's and RTRIM's.
            name: "TRIM", aliases: [], function: .trimBoth, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .custom("btrim(s) or btrim(s, characters); TRIM(characters FROM s) puts the characters first")),
        FunctionDefinition(
            name: "LTRIM", aliases: [], function: .trimLeading, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .function("ltrim")),
        FunctionDefinition(
            name: "RTRIM", aliases: [], function: .trimTrailing, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .function("rtrim")),
        FunctionDefinition(
            name: "ABS", aliases: [], function: .abs, arity: 1...1,
            arguments: [.number], result: .firstArgument,
            postgreSQL: .custom("abs, but abs of the smallest bigint is NULL here and an overflow error in PostgreSQL")),
        FunctionDefinition(
            name: "CEILING", aliases: ["CEIL"], function: .ceiling, arity: 1...1,
            arguments: [.number], result: .firstArgument,
            postgreSQL: .custom("ceiling, keeping an integer argument an integer (PostgreSQL's gives a double or numeric)")),
        FunctionDefinition(
            name: "FLOOR", aliases: [], function: .floor, arity: 1...1,
            arguments: [.number], result: .firstArgument,
            postgreSQL: .custom("floor, keeping an integer argument an integer (PostgreSQL's gives a double or numeric)")),
        FunctionDefinition(
            name: "ROUND", aliases: [], function: .round, arity: 1...2,
            arguments: [.number, .number], result: .firstArgument,
            postgreSQL: .custom(
                "rounds half away from zero, also for doubles (PostgreSQL rounds double precision half to even): "
                    + "round over numeric, cast back to the argument's type")),
        FunctionDefinition(
            name: "TRUNCATE", aliases: ["TRUNC"], function: .truncate, arity: 1...2,
            arguments: [.number, .number], result: .firstArgument,
            postgreSQL: .custom("trunc (TRUNCATE is not a PostgreSQL function), over numeric when there are digits, cast back")),
        FunctionDefinition(
            name: "MOD", aliases: [], function: .mod, arity: 2...2,
            arguments: [.number, .number], result: .integerWhenAllIntegers,
            postgreSQL: .custom("mod for integers; for doubles the remainder truncated toward zero (fmod); a zero divisor gives NULL, not an error")),
        FunctionDefinition(
            name: "POWER", aliases: [], function: .power, arity: 2...2,
            arguments: [.number, .number], result: .fixed(.double),
            postgreSQL: .custom("power over double precision, with NULL where the result is not finite instead of an error")),
        FunctionDefinition(
            name: "LOG", aliases: [], function: .log, arity: 1...1,
            arguments: [.number], result: .fixed(.double),
            postgreSQL: .custom("ln (PostgreSQL's one-argument log is base 10), with NULL for arguments ≤ 0 instead of an error")),
        FunctionDefinition(
            name: "LOG10", aliases: [], function: .log10, arity: 1...1,
            arguments: [.number], result: .fixed(.double),
            postgreSQL: .custom("log10 (or log), with NULL for arguments ≤ 0 instead of an error")),
        FunctionDefinition(
            name: "SIN", aliases: [], function: .sin, arity: 1...1,
            arguments: [.number], result: .fixed(.double),
            postgreSQL: .function("sin")),
        FunctionDefinition(
            name: "COS", aliases: [], function: .cos, arity: 1...1,
            arguments: [.number], result: .fixed(.double),
            postgreSQL: .function("cos")),
        FunctionDefinition(
            name: "TAN", aliases: [], function: .tan, arity: 1...1,
            arguments: [.number], result: .fixed(.double),
            postgreSQL: .function("tan")),
        FunctionDefinition(
            name: "SIGN", aliases: [], function: .sign, arity: 1...1,
            arguments: [.number], result: .fixed(.integer),
            postgreSQL: .custom("sign cast to integer (PostgreSQL's keeps the argument's type)")),
        FunctionDefinition(
            name: "COALESCE", aliases: [], function: .coalesce, arity: 1...255,
            arguments: [], result: .custom(Binder.bindCoalesce),
            postgreSQL: .function("coalesce")),
        FunctionDefinition(
            name: "NULLIF", aliases: [], function: .nullif, arity: 2...2,
            arguments: [], result: .custom(Binder.bindNullif),
            postgreSQL: .function("nullif")),
        FunctionDefinition(
            name: "CASEI", aliases: [], function: .caseFold, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .custom(
                "none: full Unicode case folding (CaseFolding.txt C+F); PostgreSQL's lower() is not folding (ß, ς, ﬁ differ): "
                    + "fold bound constants in the engine and compare a column through a folding function, or refuse"),
            dialects: [.cql2]),
        FunctionDefinition(
            name: "ACCENTI", aliases: [], function: .accentFold, arity: 1...1,
            arguments: [.string], result: .fixed(.string),
            postgreSQL: .custom("none: the unaccent extension's unaccent() folds letters without a decomposition differently"),
            dialects: [.cql2]),
    ])
}
