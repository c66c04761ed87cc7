import Foundation
import GeoSieve

/// Workload w1: a where-clause scan over one generated attribute table.
///
/// Columns (distributions as in the project's anchor generator, drawn from ``SplitMix64``):
///
/// | field | type | values |
/// |---|---|---|
/// | `OBJECTID` | OID | 1 … N |
/// | `POP` | Integer | `floor(exp(normal(8, 2)))`, capped at 2³¹−1 (skewed; median ≈ 3,000) |
/// | `NAME` | String | optional prefix (35 %) + syllable + optional syllable + suffix; high cardinality |
/// | `CATEGORY` | String | one of 10 service-request categories with fixed probabilities |
/// | `SCORE` | Double | uniform `[0, 1)` rounded to 4 decimals; 8 % NULL |
/// | `CREATED` | Date | uniform day in 2015-01-01 … 2024-12-31 (midnight UTC) |
enum W1 {
    /// The four where clauses, in order (`w1.q1` … `w1.q4`).
    static let queries: [String] = [
        "POP > 100000",
        "CATEGORY = 'Tree Maintenance or Damage' AND SCORE >= 0.5",
        "NAME LIKE 'San%' OR UPPER(CATEGORY) IN ('PARKS','GRAFFITI')",
        "SCORE IS NULL OR (POP BETWEEN 1000 AND 5000 AND NOT CATEGORY LIKE '%Tree%')",
    ]

    /// The CSV header, in column order.
    static let fieldNames = ["OBJECTID", "POP", "NAME", "CATEGORY", "SCORE", "CREATED"]

    /// Categories and their probabilities. "Street Light Out" contains `treet`, so
    /// `'%Tree%'` matches it only case-insensitively: Q4 checks that LIKE is case-sensitive.
    static let categories: [(name: String, probability: Double)] = [
        ("Tree Maintenance or Damage", 0.12),
        ("Parks", 0.10),
        ("Graffiti", 0.14),
        ("Street Light Out", 0.13),
        ("Pothole", 0.15),
        ("Noise Complaint", 0.09),
        ("Abandoned Vehicle", 0.07),
        ("Illegal Dumping", 0.08),
        ("Sidewalk Repair", 0.06),
        ("Water Leak", 0.06),
    ]

    static let namePrefixes = [
        "San ", "Santa ", "New ", "Port ", "Fort ", "Lake ", "Mount ", "North ", "East ", "West ",
        "South ", "El ", "Los ", "Las ", "Saint ", "Glen ",
    ]
    static let nameFirstSyllables = [
        "San", "Ber", "Cor", "Dal", "Es", "Fal", "Gar", "Hal", "Ir", "Jas", "Kel", "Lin", "Mar", "Nor",
        "Or", "Pal", "Ques", "Ros", "Sal", "Tal", "Ul", "Val", "Wes", "Yor", "Zan", "Ash", "Brook",
        "Clay", "Derr", "Elm", "Fair", "Green", "Hill", "Oak", "Spring", "Stone", "Wood", "River",
        "Sand", "Sun",
    ]
    static let nameSecondSyllables = ["", "", "a", "e", "i", "o", "an", "en", "er", "in", "ar", "el", "ing", "ow"]
    static let nameSuffixes = [
        "ton", "ville", "burg", "field", "wood", "ford", "port", "dale", "mont", "ham", "ia", "o", "a",
        "by", "stead", "view", "creek", "haven", "ridge", "land",
    ]

    /// Probability that a name has a prefix.
    static let namePrefixProbability = 0.35
    /// Probability that a score is NULL.
    static let scoreNullProbability = 0.08
    /// The largest population (2³¹ − 1).
    static let populationCap: Int64 = 2_147_483_647

    /// The generated rows, column by column, as plain Swift values: what a loader would hand to
    /// the table builder. Building the table from these is what `w1.load` measures.
    struct Rows {
        var objectIDs: [Int64]
        var populations: [Int64]
        var names: [String?]
        var categories: [String?]
        var scores: [Double?]
        /// Days since 1970-01-01.
        var createdDays: [Int64]

        var count: Int { objectIDs.count }
    }

    /// Generates `count` rows from `seed`. Each column draws from its own stream split off one
    /// master generator, so the same seed always gives the same rows.
    static func generate(count: Int, seed: UInt64) -> Rows {
        var master = SplitMix64(seed: seed)
        var popRandom = master.split()
        var nameRandom = master.split()
        var categoryRandom = master.split()
        var scoreRandom = master.split()
        var createdRandom = master.split()

        let objectIDs = (0..<count).map { Int64($0) + 1 }

        var populations = [Int64]()
        populations.reserveCapacity(count)
        let cap = Double(populationCap)
        for _ in 0..<count {
            let value = min(exp(popRandom.nextNormal(mean: 8, standardDeviation: 2)).rounded(.down), cap)
            populations.append(Int64(value))
        }

        var names = [String?]()
        names.reserveCapacity(count)
        for _ in 0..<count {
            var name = ""
            if nameRandom.nextUnit() < namePrefixProbability {
                name += namePrefixes[nameRandom.nextInt(below: namePrefixes.count)]
            }
            name += nameFirstSyllables[nameRandom.nextInt(below: nameFirstSyllables.count)]
            name += nameSecondSyllables[nameRandom.nextInt(below: nameSecondSyllables.count)]
            name += nameSuffixes[nameRandom.nextInt(below: nameSuffixes.count)]
            names.append(name)
        }

        let chooser = WeightedChoice(weights: categories.map(\.probability))
        let categoryNames = categories.map(\.name)
        var categoryValues = [String?]()
        categoryValues.reserveCapacity(count)
        for _ in 0..<count {
            categoryValues.append(categoryNames[chooser.pick(&categoryRandom)])
        }

        var scores = [Double?]()
        scores.reserveCapacity(count)
        for _ in 0..<count {
            let value = (scoreRandom.nextUnit() * 10_000).rounded() / 10_000
            scores.append(scoreRandom.nextUnit() < scoreNullProbability ? nil : value)
        }

        let firstDay = CivilTime.days(year: 2015, month: 1, day: 1)
        let lastDay = CivilTime.days(year: 2024, month: 12, day: 31)
        let dayCount = Int(lastDay - firstDay + 1)
        var createdDays = [Int64]()
        createdDays.reserveCapacity(count)
        for _ in 0..<count {
            createdDays.append(firstDay + Int64(createdRandom.nextInt(below: dayCount)))
        }

        return Rows(
            objectIDs: objectIDs, populations: populations, names: names, categories: categoryValues,
            scores: scores, createdDays: createdDays)
    }

    /// The table's schema: the six fields, OBJECTID as object ID, no geometry.
    static func schema() throws(FeatureTableError) -> Schema {
        try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid),
                Field(name: "POP", type: .integer),
                Field(name: "NAME", type: .string),
                Field(name: "CATEGORY", type: .string),
                Field(name: "SCORE", type: .double),
                Field(name: "CREATED", type: .date),
            ],
            objectIdFieldName: "OBJECTID")
    }

    /// Builds the feature table from generated rows: typed columns, validity bitmaps, string
    /// dictionary encoding (CATEGORY; NAME has too many distinct values and stays plain) and the
    /// table's object-ID index.
    static func makeTable(_ rows: Rows) throws(FeatureTableError) -> FeatureTable {
        var scoreValues = [Double](repeating: 0, count: rows.count)
        var scoreValidity = ValidityBitmap(count: rows.count, allValid: true)
        var hasNullScore = false
        for (row, score) in rows.scores.enumerated() {
            if let score {
                scoreValues[row] = score
            } else {
                scoreValidity.set(row, valid: false)
                hasNullScore = true
            }
        }
        let columns: [Column] = [
            .integer(Int64Column(values: rows.objectIDs)),
            .integer(Int64Column(values: rows.populations)),
            .string(StringColumn(rows.names)),
            .string(StringColumn(rows.categories)),
            .double(DoubleColumn(values: scoreValues, validity: hasNullScore ? scoreValidity : nil)),
            .date(Int64Column(values: rows.createdDays.map { $0 * CivilTime.millisecondsPerDay })),
        ]
        return try FeatureTable(schema: schema(), columns: columns)
    }
}
