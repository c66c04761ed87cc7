import Foundation
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFormats

/// CSV files as sources: RFC 4180 quoting, delimiters, the geometry columns, typing, object IDs,
/// errors, and one thread against several. Expected values follow from the rules in the
/// CSVFiles article; the GDAL suite below reads the same files with GDAL's CSV driver.
@Suite("CSV sources")
struct CSVSourceTests {
    @Test("quoted fields with delimiters, quotes and line ends; a BOM; typed columns; NULLs")
    func quotingAndTypes() throws {
        let text = "\u{FEFF}name,lon,lat,pop,when,code,ratio\r\n"
            + "\"Zürich, CH\",8.54,47.37,402762,2024-02-29,02134,0.5\r\n"
            + "Bern,7.45,46.95,,2024-03-01T10:00:00Z,3000,1\r\n"
            + "\r\n"
            + "\"two\nlines \"\"quoted\"\"\",-1,-2,5000000000,,\"\",-3e2\n"
        let table = try CSVFile.read(text: text)
        #expect(table.count == 3)
        #expect(
            table.schema.fields.map { "\($0.name) \($0.type.rawValue)" } == [
                "OBJECTID esriFieldTypeOID", "name esriFieldTypeString", "lon esriFieldTypeDouble", "lat esriFieldTypeDouble",
                "pop esriFieldTypeBigInteger", "when esriFieldTypeDate", "code esriFieldTypeString", "ratio esriFieldTypeDouble",
            ])
        #expect(table.objectIDs == [1, 2, 3])
        #expect((0..<3).map { table.value(row: $0, field: "name") } == [.string("Zürich, CH"), .string("Bern"), .string("two\nlines \"quoted\"")])
        #expect((0..<3).map { table.value(row: $0, field: "pop") } == [.integer(402_762), .null, .integer(5_000_000_000)])
        let day = CivilTime.days(year: 2024, month: 2, day: 29) * 86_400_000
        #expect((0..<3).map { table.value(row: $0, field: "when") } == [.date(day), .date(day + 86_400_000 + 36_000_000), .null])
        // Leading zeros keep a code a text; a quoted empty field is the empty string, not NULL.
        #expect((0..<3).map { table.value(row: $0, field: "code") } == [.string("02134"), .string("3000"), .string("")])
        #expect((0..<3).map { table.value(row: $0, field: "ratio") } == [.double(0.5), .double(1), .double(-300)])
        #expect(table.geometry(row: 0) == .point(Point(x: 8.54, y: 47.37)))
        #expect(table.geometry(row: 2) == .point(Point(x: -1, y: -2)))
        #expect(table.spatialReference == .wgs84)
    }

    @Test("the delimiter is detected or named; columns are found by name or named")
    func delimitersAndColumns() throws {
        for (delimiter, name) in [(";", "semicolon"), ("\t", "tab"), ("|", "bar"), (",", "comma")] {
            let label = delimiter == "," ? "\"1,5\"" : "1,5"
            let text = ["X\(delimiter)Y\(delimiter)label", "1\(delimiter)2\(delimiter)\(label)", "3\(delimiter)4\(delimiter)b"].joined(separator: "\n")
            let table = try CSVFile.read(text: text)
            #expect(table.count == 2, "\(name)")
            #expect(table.schema.fields.map(\.name) == ["OBJECTID", "X", "Y", "label"], "\(name)")
            #expect(table.value(row: 0, field: "label") == .string("1,5"), "\(name)")
            #expect(table.geometry(row: 1) == .point(Point(x: 3, y: 4)), "\(name)")
            // Named, the delimiter is not detected: with another one, the header is one column.
            let named = try CSVFile.read(text: text, options: CSVReadOptions(delimiter: delimiter == ";" ? "|" : ";"))
            #expect(named.schema.fields.count == 2, "\(name)")
        }
        let notNumber = try #require(throws: FileFormatError.self) { try CSVFile.read(text: "x,y\n1,\"1,5\"\n") }
        #expect(notNumber.record == 1)
        #expect(notNumber.fieldName == "y")
        #expect(notNumber.message == #""1,5" is not a coordinate (a number)"#)
        let text = "id;a;b;shape_wkt\n1;10;20;POINT (1 2)\n2;11;21;\n"
        #expect(try CSVFile.read(text: text).schema.geometryType == nil)  // no known geometry column name
        let byWKT = try CSVFile.read(text: text, options: CSVReadOptions(wktField: "SHAPE_WKT"))
        #expect(byWKT.schema.geometryType == .point)
        #expect(byWKT.schema.fields.map(\.name) == ["OBJECTID", "id", "a", "b"])
        #expect(byWKT.geometry(row: 1) == nil)
        let byXY = try CSVFile.read(text: text, options: CSVReadOptions(xField: "a", yField: "b", spatialReference: SpatialReference(wkid: 2263)))
        #expect(byXY.geometry(row: 1) == .point(Point(x: 11, y: 21)))
        #expect(byXY.spatialReference.wkid == 2263)
        let missing = try #require(throws: FileFormatError.self) { try CSVFile.read(text: text, options: CSVReadOptions(wktField: "geom")) }
        #expect(missing.message == #"the WKT column "geom": no such column; the columns are "id", "a", "b", "shape_wkt""#)
    }

    @Test("WKT geometries of one kind; points and multipoints mix; other mixes and bad WKT are errors")
    func wktGeometries() throws {
        let mixed = try CSVFile.read(text: "WKT,n\n\"MULTIPOINT ((1 2), (3 4))\",1\nPOINT (5 6),2\n")
        #expect(mixed.schema.geometryType == .multipoint)
        #expect(mixed.geometry(row: 1) == .multipoint(try Multipoint(points: [Point(x: 5, y: 6)])))
        let polygons = try CSVFile.read(text: "geometry\n\"POLYGON ((0 0, 1 0, 1 1, 0 0))\"\n\"MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)))\"\n")
        #expect(polygons.schema.geometryType == .polygon)
        let error = try #require(throws: FileFormatError.self) { try CSVFile.read(text: "wkt\nPOINT (1 2)\n\"LINESTRING (0 0, 1 1)\"\n") }
        #expect(error.kind == .invalidGeometry)
        #expect(error.record == 2)
        #expect(error.byteOffset == 16)
        let bad = try #require(throws: FileFormatError.self) { try CSVFile.read(text: "wkt\nPOINT (1\n") }
        #expect(bad.kind == .invalidGeometry)
        #expect(bad.message.contains("invalid WKT"))
    }

    @Test("the object IDs are an OBJECTID column of unique integers, else 1, 2, 3 …")
    func objectIDs() throws {
        let kept = try CSVFile.read(text: "OBJECTID,v\n7,a\n3,b\n")
        #expect(kept.objectIDs == [7, 3])
        #expect(kept.schema.objectIdFieldName == "OBJECTID")
        let repeated = try CSVFile.read(text: "objectid,v\n7,a\n7,b\n")
        #expect(repeated.objectIDs == [1, 2])
        #expect(repeated.schema.objectIdFieldName == "OBJECTID_1")
        #expect(repeated.value(row: 1, field: "objectid") == .integer(7))
    }

    @Test("malformed text fails with the record and byte offset")
    func malformed() throws {
        let cases: [(String, String, Int?, Int?)] = [
            ("a,b\n1,2,3\n", "the record has more fields than the header's 2", 1, 8),
            ("a,b\n\"open,2\n", "a quoted field is not closed before the end of the text", 1, 4),
            ("a,b\n\"x\"y,2\n", "expected the delimiter or a line end after the closing quote, found 'y'", 1, 7),
            ("a,A\n1,2\n", #"two columns are named "A" (names are compared ignoring case)"#, nil, 2),
            ("", "the file is empty: a CSV needs a header row", nil, 0),
        ]
        for (text, message, record, offset) in cases {
            let error = try #require(throws: FileFormatError.self) { try CSVFile.read(text: text) }
            #expect(error.message == message, "\(text)")
            #expect(error.record == record, "\(text)")
            #expect(error.byteOffset == offset, "\(text)")
        }
        // Fewer fields than the header: the missing ones are NULL.
        let short = try CSVFile.read(text: "a,b,c\n1\n2,3\n")
        #expect(short.value(row: 0, field: "b") == .null)
        #expect(short.value(row: 1, field: "b") == .integer(3))
        let latin1 = [UInt8]("a\n".utf8) + [0xE9, 0x0A]
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("l.csv").path
            try Data(latin1).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: FileFormatError.self) { try CSVFile.read(at: path) }
            #expect(error.description == "invalid value in \(path), record 1, field \"a\", byte 2: the text is not UTF-8 (CSV files are read as UTF-8)")
        }
    }

    /// A text over the threshold at which scanning is split (64 KiB here, 4 MiB by default),
    /// with quoted line ends and delimiters near every boundary: the same table from one thread
    /// and from several; and an error in a later piece numbered as in the whole text.
    @Test func threadsGiveIdenticalTables() throws {
        var lines = ["id,name,lon,lat,v"]
        var random = SeededGenerator(seed: 11)
        for i in 0..<20_000 {
            let quoted = random.next() % 3 == 0
            let name = quoted ? "\"n\(i),\n\"\"\(random.next() % 1000)\"\"\"" : "n\(i)"
            lines.append("\(i),\(name),\(Double(random.next() % 36000) / 100 - 180),\(Double(random.next() % 17000) / 100 - 85),\(random.next() % 7)")
        }
        let text = lines.joined(separator: "\n") + "\n"
        func options(_ threads: Int) -> CSVReadOptions {
            var options = CSVReadOptions(threads: threads)
            options.parallelThreshold = 64 << 10
            return options
        }
        #expect(text.utf8.count > 10 * options(1).parallelThreshold)
        let one = try CSVFile.read(text: text, options: options(1))
        #expect(one.count == 20_000)
        for threads in [2, 3, 7] {
            let many = try CSVFile.read(text: text, options: options(threads))
            #expect(many.count == one.count)
            #expect(many.schema == one.schema)
            for row in stride(from: 0, to: one.count, by: 97) {
                for field in one.schema.fields {
                    #expect(many.value(row: row, field: field.name) == one.value(row: row, field: field.name))
                }
                #expect(many.geometry(row: row) == one.geometry(row: row))
            }
        }
        let broken = text + "1,\"unclosed,2,3,4\n"
        let error = try #require(throws: FileFormatError.self) { try CSVFile.read(text: broken, options: options(3)) }
        #expect(error.record == 20_001)
    }
}
