import Foundation
import GeoSieve

/// The tables the where-clause and feature targets query.
public enum FuzzTables {
    /// Natural Earth's countries (177 features, integers, doubles, strings), from the test fixtures.
    public static let countries: FeatureTable? = try? FeatureTable.load(
        contentsOf: Fuzzing.fixtures.appendingPathComponent("naturalearth_lowres.geojson"))

    /// A table of extreme values: Int64 bounds, the largest and smallest doubles, dates at both
    /// ends of the range, strings in both Unicode normalization forms, LIKE's special characters
    /// before combining marks, empty and long strings, and NULL in every column. Column `s` has
    /// few distinct values (dictionary-encoded), column `p` many (stored plain), so both string
    /// layouts are fuzzed.
    public static let extremes: FeatureTable? = {
        let long = String(repeating: "ab", count: 300)
        var rows: [(i: String, d: String, s: String, t: String)] = [
            ("9223372036854775807", "1.7976931348623157e308", #""\u00e9""#, "-9223372036854775808"),
            ("-9223372036854775808", "-1.7976931348623157e308", #""e\u0301""#, "9223372036854775807"),
            ("-9223372036854775807", "5e-324", #""%""#, "-62135596800000"),
            ("0", "-0.0", #""_""#, "253402300799999"),
            ("1", "0.5", #""\\""#, "0"),
            ("-1", "-2.5", #""""#, "-1"),
            ("4611686018427387904", "9.2233720368547758e18", "\"\(long)\"", "86400000"),
            ("null", "null", "null", "null"),
            ("2147483647", "1e-300", #""\u00df""#, "951782400000"),
            ("-2147483648", "123456789.125", #""SS""#, "-86400001"),
        ]
        for n in 0..<70 {
            rows.append((String(n * 1_000_003 - 35_000_000), String(Double(n) / 3), #""s\#(n % 5)""#, String(Int64(n) * 86_400_000 * 97)))
        }
        // Plain strings: every pair of the pieces below, so that wildcards, escapes and
        // combining marks meet in every order.
        let pieces = [#"%"#, #"_"#, #"\\"#, #"\u0301"#, #"\u00e9"#, #"e\u0301"#, "a", #"\u00df"#, "S"]
        let plain = pieces.flatMap { first in pieces.map { "\"" + first + $0 + "\"" } }
        let features = rows.enumerated().map { index, row in
            let p = index < plain.count ? plain[index] : "null"
            return #"{"attributes":{"OBJECTID":\#(index + 1),"i":\#(row.i),"d":\#(row.d),"s":\#(row.s),"t":\#(row.t),"p":\#(p)},"geometry":{"x":\#(index),"y":\#(-index)}}"#
        }
        let text = #"""
            {"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},
             "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"i","type":"esriFieldTypeBigInteger"},
                       {"name":"d","type":"esriFieldTypeDouble"},{"name":"s","type":"esriFieldTypeString"},
                       {"name":"t","type":"esriFieldTypeDate"},{"name":"p","type":"esriFieldTypeString"}],
             "features":[\#(features.joined(separator: ","))]}
            """#
        return try? FeatureTable.load(esriJSON: text)
    }()
}
