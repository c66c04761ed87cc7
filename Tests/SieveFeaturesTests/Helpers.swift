import SieveFeatures
import SieveEditing
import SieveFormats
import Testing

/// A GeoJSON FeatureCollection whose features have the given `properties` JSON texts, no `id`
/// and `null` geometry unless `ids` and `geometries` (JSON texts) are given.
func featureCollection(_ properties: [String], ids: [String]? = nil, geometries: [String]? = nil, crs: String? = nil)
    -> String
{
    var features: [String] = []
    for (i, property) in properties.enumerated() {
        var members = [#""type":"Feature""#]
        if let ids { members.append(#""id":"# + ids[i]) }
        members.append(#""properties":"# + property)
        members.append(#""geometry":"# + (geometries?[i] ?? "null"))
        features.append("{" + members.joined(separator: ",") + "}")
    }
    let crsMember = crs.map { #""crs":"# + $0 + "," } ?? ""
    return #"{"type":"FeatureCollection","# + crsMember + #""features":["# + features.joined(separator: ",") + "]}"
}

/// Runs `body`, returning the ``FeatureTableError`` it throws (or `nil` when it throws none).
/// Any other error is recorded as a test issue.
func featureTableError(_ body: () throws -> Void) -> FeatureTableError? {
    do {
        try body()
        return nil
    } catch let error as FeatureTableError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
