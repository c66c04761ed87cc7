import SieveColumns

/// The special forms of the grammar: CASE, CAST, EXTRACT, POSITION and SUBSTRING with their
/// keyword syntax, TRIM, and the DATE / TIMESTAMP / INTERVAL literals. The Pratt core and the
/// operands are in Parser.swift.
extension Parser {
    // MARK: Special forms

    mutating func parseCase() throws(WhereClauseError) -> SQLExpression {
        let caseToken = try advance()
        var operand: SQLExpression?
        let first = try peek()
        if first.is(.end) || first.is(.else) || first.is(.then) {
            throw expected("WHEN in CASE", found: first)
        }
        if !first.is(.when) {
            operand = try parseExpression(above: .lowest)
        }
        var branches: [CaseBranch] = []
        while try consume(.when) {
            let when = try parseExpression(above: .lowest)
            _ = try expect(.then, "THEN after the WHEN expression")
            let then = try parseExpression(above: .lowest)
            branches.append(CaseBranch(when: when, then: then))
        }
        guard !branches.isEmpty else { throw expected("WHEN in CASE", found: try peek()) }
        var otherwise: SQLExpression?
        if try consume(.else) {
            otherwise = try parseExpression(above: .lowest)
        }
        let end = try expect(.end, otherwise == nil ? "WHEN, ELSE or END in CASE" : "END to close the CASE")
        return try make(.caseWhen(operand: operand, branches: branches, otherwise: otherwise), caseToken.range.union(end.range))
    }

    mutating func parseCast() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let castToken = try advance()
        try advance()  // (
        let operand = try parseExpression(above: .lowest)
        _ = try expect(.as, "AS in CAST")
        let typeToken = try advance()
        guard case .word(let typeName, _) = typeToken.kind else { throw expected("a type name after AS", found: typeToken) }
        let target: CastTarget
        switch typeName.uppercased() {
        case "INTEGER", "INT", "SMALLINT", "BIGINT":
            target = .integer
        case "FLOAT", "REAL":
            target = .float
        case "DOUBLE":
            target = .float
            if case .word(let next, _) = try peek().kind, next.uppercased() == "PRECISION" { try advance() }
        case "VARCHAR", "CHAR", "CHARACTER":
            target = .varchar
            if try peek().is(.leftParenthesis) {
                try advance()
                let length = try peek()
                guard case .integer = length.kind else { throw expected("a length", found: length) }
                try advance()
                _ = try expect(.rightParenthesis, "\")\" after the length")
            }
        case "DATE", "TIMESTAMP":
            target = .date
        default:
            throw error(.syntaxError, "unknown type \(WhereClauseError.quoted(typeName)) in CAST; expected INTEGER, FLOAT, VARCHAR or DATE", typeToken.range)
        }
        let close = try expect(.rightParenthesis, "\")\" to close the CAST")
        return try make(.cast(operand, to: target), castToken.range.union(close.range))
    }

    func dateTimeField(_ token: Token) -> DateTimeField? {
        switch token.keyword {
        case .year?: return .year
        case .month?: return .month
        case .day?: return .day
        case .hour?: return .hour
        case .minute?: return .minute
        case .second?: return .second
        default: return nil
        }
    }

    mutating func parseExtract() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let extractToken = try advance()
        try advance()  // (
        let fieldToken = try advance()
        guard let field = dateTimeField(fieldToken) else {
            throw expected("YEAR, MONTH, DAY, HOUR, MINUTE or SECOND in EXTRACT", found: fieldToken)
        }
        _ = try expect(.from, "FROM after EXTRACT(\(field.rawValue.uppercased())")
        let source = try parseExpression(above: .lowest)
        let close = try expect(.rightParenthesis, "\")\" to close the EXTRACT")
        return try make(.extract(field, from: source), extractToken.range.union(close.range))
    }

    /// `POSITION(sub IN s)` → `POSITION(sub, s)`; `POSITION(a, b)` as written.
    mutating func parsePosition() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let nameToken = try peek()
        guard case .word(let name, _) = nameToken.kind else { throw expected("POSITION", found: nameToken) }
        try advance()
        if try peek(1).is(.rightParenthesis) { return try parseFunctionCall(name: name, nameToken) }
        try advance()  // (
        let first = try parseExpression(above: .comparison)
        if try consume(.in) {
            let second = try parseExpression(above: .lowest)
            let close = try expect(.rightParenthesis, "\")\" to close the POSITION")
            let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: [first, second])
            return try make(.function(call), nameToken.range.union(close.range))
        }
        let whole = try parseInfix(first, above: .lowest)
        return try finishCall(nameToken, first: whole, what: "IN, \",\" or \")\" in POSITION")
    }

    /// `SUBSTRING(s FROM i [FOR n])` → `SUBSTRING(s, i[, n])`; `SUBSTRING(s, i, n)` as written.
    mutating func parseSubstring() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let nameToken = try peek()
        guard case .word(let name, _) = nameToken.kind else { throw expected("SUBSTRING", found: nameToken) }
        try advance()
        if try peek(1).is(.rightParenthesis) { return try parseFunctionCall(name: name, nameToken) }
        try advance()  // (
        let source = try parseExpression(above: .lowest)
        if try consume(.from) {
            var arguments = [source, try parseExpression(above: .lowest)]
            if try consume(.for) {
                arguments.append(try parseExpression(above: .lowest))
            }
            let close = try expect(.rightParenthesis, arguments.count == 2 ? "FOR or \")\" in SUBSTRING" : "\")\" to close the SUBSTRING")
            let call = FunctionCall(name: name, nameRange: nameToken.range, arguments: arguments)
            return try make(.function(call), nameToken.range.union(close.range))
        }
        return try finishCall(nameToken, first: source, what: "FROM, \",\" or \")\" in SUBSTRING")
    }

    /// `TRIM([BOTH|LEADING|TRAILING] [characters FROM] source)`.
    ///
    /// `BOTH`, `LEADING` and `TRAILING` are the mode unless followed by `)` or `,`; write them in
    /// double quotes for fields of those names. `TRIM(LEADING s)` (mode without `FROM`) and
    /// `TRIM(FROM s)` are accepted too.
    mutating func parseTrim() throws(WhereClauseError) -> SQLExpression {
        guard try startsCall() else { return try parseSimpleOperand() }
        let trimToken = try advance()
        try advance()  // (
        var mode: TrimMode?
        let first = try peek()
        if let keyword = first.keyword, [.both, .leading, .trailing].contains(keyword) {
            let after = try peek(1)
            if !after.is(.rightParenthesis), !after.is(.comma) {
                try advance()
                mode = keyword == .both ? .both : keyword == .leading ? .leading : .trailing
            }
        }
        var characters: SQLExpression?
        let source: SQLExpression
        let next = try peek()
        let after = try peek(1)
        if next.is(.from), mode != nil || (!after.is(.rightParenthesis) && !after.is(.comma)) {
            try advance()
            source = try parseExpression(above: .lowest)
        } else {
            let expression = try parseExpression(above: .lowest)
            if try consume(.from) {
                characters = expression
                source = try parseExpression(above: .lowest)
            } else {
                source = expression
            }
        }
        let close = try expect(.rightParenthesis, characters == nil ? "FROM or \")\" in TRIM" : "\")\" to close the TRIM")
        return try make(.trim(mode ?? .both, characters: characters, source: source), trimToken.range.union(close.range))
    }

    mutating func parseDateLiteral() throws(WhereClauseError) -> SQLExpression {
        guard try startsDateLiteral() else { return try parseSimpleOperand() }
        let keywordToken = try advance()
        let stringToken = try advance()
        guard case .string(let text) = stringToken.kind else { throw expected("a string", found: stringToken) }
        let range = keywordToken.range.union(stringToken.range)
        if keywordToken.is(.date) {
            guard let milliseconds = CivilTime.parse(text, syntax: .sqlDate) else {
                throw error(.badLiteral, "invalid DATE literal \(WhereClauseError.quoted(text, quote: "'")); expected an existing date as 'yyyy-mm-dd'", range)
            }
            return try make(.literal(.date(milliseconds)), range)
        }
        guard let milliseconds = CivilTime.parse(text, syntax: .sqlTimestamp) else {
            throw error(.badLiteral, "invalid TIMESTAMP literal \(WhereClauseError.quoted(text, quote: "'")); expected 'yyyy-mm-dd hh:mi[:ss[.fff]][±hh:mm]'", range)
        }
        return try make(.literal(.timestamp(milliseconds)), range)
    }

    /// `INTERVAL [+|-] 'text' qualifier`.
    mutating func parseInterval() throws(WhereClauseError) -> SQLExpression {
        guard try startsInterval() else { return try parseSimpleOperand() }
        let intervalToken = try advance()
        var negative = false
        if try consume(.minus) {
            negative = true
        } else {
            _ = try consume(.plus)
        }
        let stringToken = try advance()
        guard case .string(let text) = stringToken.kind else { throw expected("a string", found: stringToken) }

        let startToken = try peek()
        guard let start = dateTimeField(startToken) else {
            throw expected("DAY, HOUR, MINUTE or SECOND after the INTERVAL string", found: startToken)
        }
        guard start != .year, start != .month else {
            throw error(.badLiteral, "year-month intervals are not supported; use DAY, HOUR, MINUTE or SECOND", startToken.range)
        }
        var end = try advance().range
        end = try skipPrecision() ?? end
        var last = start
        if try consume(.to) {
            let lastToken = try advance()
            guard let field = dateTimeField(lastToken), field != .year, field != .month,
                Self.intervalRank(field) > Self.intervalRank(start)
            else {
                throw error(.syntaxError, "invalid interval qualifier \(start.rawValue.uppercased()) TO \(describe(lastToken))", lastToken.range)
            }
            last = field
            end = try skipPrecision() ?? lastToken.range
        }
        let range = intervalToken.range.union(end)
        let qualifier = start == last ? start.rawValue.uppercased() : "\(start.rawValue.uppercased()) TO \(last.rawValue.uppercased())"
        switch Self.readInterval(text, from: start, to: last, negated: negative) {
        case .milliseconds(let milliseconds):
            return try make(.literal(.interval(milliseconds: milliseconds)), range)
        case .malformed:
            throw error(.badLiteral, "invalid INTERVAL literal \(WhereClauseError.quoted(text, quote: "'")) for \(qualifier); expected \(Self.intervalFormat(from: start, to: last))", range)
        case .outOfRange:
            throw error(
                .badLiteral,
                "INTERVAL literal \(WhereClauseError.quoted(text, quote: "'")) \(qualifier) is out of range: intervals hold up to 9223372036854775807 milliseconds "
                    + "(106751991167 days) either way", range)
        }
    }

    /// Skips `(p)` or `(p, s)` after an interval field; returns the range of `)` if present.
    mutating func skipPrecision() throws(WhereClauseError) -> SourceRange? {
        guard try peek().is(.leftParenthesis), case .integer = try peek(1).kind else { return nil }
        try advance()
        try advance()
        if try consume(.comma) {
            let scale = try advance()
            guard case .integer = scale.kind else { throw expected("a fractional-seconds precision", found: scale) }
        }
        return try expect(.rightParenthesis, "\")\" after the interval precision").range
    }

    private static func intervalRank(_ field: DateTimeField) -> Int {
        switch field {
        case .day: return 0
        case .hour: return 1
        case .minute: return 2
        case .second: return 3
        case .year, .month: return -1
        }
    }

    private static func intervalFormat(from start: DateTimeField, to last: DateTimeField) -> String {
        let parts = ["d", "hh", "mi", "ss[.fff]"]
        let slice = parts[intervalRank(start)...intervalRank(last)]
        var format = ""
        for (offset, part) in slice.enumerated() {
            if offset > 0 { format += (part == "hh" ? " " : ":") }
            format += part
        }
        return "'[-]" + format + "'"
    }

    /// What an INTERVAL string reads as.
    enum IntervalReading: Equatable {
        /// The interval in milliseconds, sign applied.
        case milliseconds(Int64)
        /// The text does not have the qualifier's form.
        case malformed
        /// Well formed, but beyond what `Int64` milliseconds hold (±2^63 ms, about
        /// ±106,751,991,167 days; -2^63 itself fits).
        case outOfRange
    }

    /// Reads `[+|-]lead[ sep field…][.fraction]` for the fields `start` through `last`
    /// (separators: spaces between days and hours, `:` otherwise); `nil` if malformed, out of
    /// range or overflowing. `negated` applies the sign written before the string
    /// (`INTERVAL -'1' DAY`).
    static func intervalMilliseconds(
        _ text: String, from start: DateTimeField, to last: DateTimeField, negated: Bool = false
    ) -> Int64? {
        guard case .milliseconds(let value) = readInterval(text, from: start, to: last, negated: negated) else { return nil }
        return value
    }

    /// Reads an INTERVAL string (see ``intervalMilliseconds(_:from:to:negated:)``), telling a
    /// malformed text from one out of range. The magnitude is accumulated unsigned and checked
    /// against 2^63 - 1, or 2^63 when the interval is negative, so nothing overflows.
    static func readInterval(_ text: String, from start: DateTimeField, to last: DateTimeField, negated: Bool) -> IntervalReading {
        var bytes = Array(text.utf8)[...]
        while bytes.first == 0x20 { bytes.removeFirst() }
        while bytes.last == 0x20 { bytes.removeLast() }
        var negative = negated
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") {
            if bytes.first == UInt8(ascii: "-") { negative.toggle() }
            bytes.removeFirst()
        }
        let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        var outOfRange = false
        /// Digits as a number (saturating: `outOfRange` is set on overflow); `nil` when there
        /// are none or more than `maximumDigits`.
        func number(maximumDigits: Int) -> UInt64? {
            var value: UInt64 = 0
            var count = 0
            while let byte = bytes.first, byte >= 48, byte <= 57 {
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(byte - 48))
                if overflow1 || overflow2 { outOfRange = true }
                value = sum
                count += 1
                bytes.removeFirst()
            }
            return count > 0 && count <= maximumDigits ? value : nil
        }
        let units: [(field: DateTimeField, milliseconds: UInt64, limit: UInt64)] = [
            (.day, 86_400_000, UInt64.max), (.hour, 3_600_000, 24), (.minute, 60_000, 60), (.second, 1000, 60),
        ]
        var total: UInt64 = 0
        func add(_ value: UInt64) {
            let (sum, overflow) = total.addingReportingOverflow(value)
            if overflow || sum > limit { outOfRange = true }
            total = sum
        }
        for index in intervalRank(start)...intervalRank(last) {
            let unit = units[index]
            let isLeading = index == intervalRank(start)
            if !isLeading {
                if unit.field == .hour {
                    guard bytes.first == 0x20 else { return .malformed }
                    while bytes.first == 0x20 { bytes.removeFirst() }
                } else {
                    guard bytes.first == UInt8(ascii: ":") else { return .malformed }
                    bytes.removeFirst()
                }
            }
            guard let value = number(maximumDigits: isLeading ? Int.max : 2) else { return .malformed }
            guard isLeading || value < unit.limit else { return .malformed }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: unit.milliseconds)
            if overflow { outOfRange = true }
            add(scaled)
        }
        if last == .second, bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            var scale: UInt64 = 100
            var fraction: UInt64 = 0
            var any = false
            while let byte = bytes.first, byte >= 48, byte <= 57 {
                fraction += UInt64(byte - 48) * scale
                scale /= 10
                any = true
                bytes.removeFirst()
            }
            guard any else { return .malformed }
            add(fraction)
        }
        guard bytes.isEmpty else { return .malformed }
        if outOfRange { return .outOfRange }
        // total ≤ limit: 2^63 only when negative, which is Int64.min.
        return .milliseconds(negative ? Int64(truncatingIfNeeded: 0 &- total) : Int64(total))
    }
}
