import Foundation
import GeoSieve

extension W1 {
    /// Writes `rows` to `directory/w1.csv` and the where clauses to `directory/w1_queries.sql`
    /// (one per line), creating the directory if needed, so that other engines can load exactly
    /// the rows GeoSieve measures.
    ///
    /// CSV: header `OBJECTID,POP,NAME,CATEGORY,SCORE,CREATED`, `\n` line ends, an empty field for
    /// NULL, doubles in their shortest round-trip form, CREATED as `yyyy-mm-dd`; a field holding
    /// a comma, quote or line break is quoted (the generated values never do).
    static func export(_ rows: Rows, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try writeCSV(rows, to: directory.appendingPathComponent("w1.csv"))
        let sql = queries.joined(separator: "\n") + "\n"
        try Data(sql.utf8).write(to: directory.appendingPathComponent("w1_queries.sql"))
    }

    private static func writeCSV(_ rows: Rows, to url: URL) throws {
        var out = try BufferedFile(url)
        append(fieldNames.joined(separator: ","), to: &out.buffer)
        out.buffer.append(UInt8(ascii: "\n"))
        for row in 0..<rows.count {
            append(String(rows.objectIDs[row]), to: &out.buffer)
            out.buffer.append(UInt8(ascii: ","))
            append(String(rows.populations[row]), to: &out.buffer)
            out.buffer.append(UInt8(ascii: ","))
            appendField(rows.names[row], to: &out.buffer)
            out.buffer.append(UInt8(ascii: ","))
            appendField(rows.categories[row], to: &out.buffer)
            out.buffer.append(UInt8(ascii: ","))
            if let score = rows.scores[row] { append(score.description, to: &out.buffer) }
            out.buffer.append(UInt8(ascii: ","))
            append(isoDate(days: rows.createdDays[row]), to: &out.buffer)
            out.buffer.append(UInt8(ascii: "\n"))
            try out.flushIfFull()
        }
        _ = try out.close()
    }

    /// `yyyy-mm-dd` for a day count since 1970-01-01.
    static func isoDate(days: Int64) -> String {
        let (year, month, day) = CivilTime.date(days: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    private static func append(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: text.utf8)
    }

    /// A string field: empty for NULL, quoted (with `""` for `"`) when it needs it.
    private static func appendField(_ value: String?, to buffer: inout [UInt8]) {
        guard let value else { return }
        let needsQuotes = value.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
            || value.isEmpty
        guard needsQuotes else {
            append(value, to: &buffer)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

/// A file could not be written.
struct ExportError: Error, CustomStringConvertible {
    /// What went wrong.
    var message: String
    var description: String { message }
}
