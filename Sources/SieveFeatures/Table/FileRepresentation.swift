import SieveColumns
import SieveGeometry
import SieveJSON

/// How a GeoJSON FeatureCollection or an Esri JSON FeatureSet held the features a table was
/// loaded from, beyond what the table's schema says: where the object IDs came from, which
/// fields the loader added, the root object's other members and the order of a feature's
/// members. Saving edits (``FeatureWriterOptions/keepsFileRepresentation``) writes the file
/// back in this shape rather than in the query-output shape.
///
/// A loaded table carries it (``FeatureTable/fileRepresentation``), and so do the snapshots
/// of an ``EditableFeatureTable`` made from it (edits never change the schema).
package struct FileRepresentation: Sendable {
    /// The file's format.
    package enum Format: Sendable, Hashable {
        /// A GeoJSON FeatureCollection.
        case geoJSON
        /// An Esri JSON FeatureSet.
        case esriJSON
    }

    /// Where the table's object IDs came from.
    package enum ObjectIDSource: Sendable, Hashable {
        /// An attribute of the file's features (a field of its own, written back as it is).
        case attribute
        /// The GeoJSON features' integer `id` members (written back as `id`).
        case featureIDs
        /// The features' 1-based positions (written nowhere).
        case positions
    }

    /// How a file wrote the dates of a field (loaded as instants).
    package enum DateStyle: Sendable, Hashable {
        /// `yyyy-mm-dd` (written so when the instant is midnight UTC).
        case day
        /// `yyyy-mm-ddThh:mm:ssZ` (written so when the instant has no milliseconds).
        case seconds

        /// The form of one ISO-8601 text: `nil` for `yyyy-mm-ddThh:mm:ss.sssZ` or another form.
        package init?(_ text: UnsafeRawBufferPointer) {
            if text.count == 10 {
                self = .day
            } else if text.count == 20, text[10] == UInt8(ascii: "T"), text[19] == UInt8(ascii: "Z") {
                self = .seconds
            } else {
                return nil
            }
        }
    }

    /// A member of a feature object.
    package enum FeatureMember: Sendable, Hashable {
        /// GeoJSON `type`.
        case type
        /// GeoJSON `id`.
        case id
        /// `geometry`.
        case geometry
        /// GeoJSON `properties`, Esri JSON `attributes`.
        case attributes
    }

    /// The file's format.
    package var format: Format
    /// Where the object IDs came from.
    package var objectIDs: ObjectIDSource
    /// GeoJSON with an object-ID attribute: whether every feature's `id` was its object ID (as
    /// in files a query wrote), so that `id` is written back as the object ID.
    package var featureIDsAreObjectIDs = false
    /// The field the loader added to hold the object IDs (not an attribute of the file), if any.
    package var addedObjectIDField: String?
    /// The field the loader added to hold GeoJSON feature `id`s that are not the object IDs
    /// (some not integers), if any: written back as `id`, not as a property.
    package var featureIDField: String?
    /// GeoJSON integer `id`s that are not the object IDs (some features lack one, or they differ
    /// from the object-ID attribute), by object ID: written back as `id` (added features get
    /// none).
    package var featureIDsByObjectID: [Int64: Int64] = [:]
    /// The fields (by index) whose values the file wrote as `true` and `false` (loaded as 0
    /// and 1).
    package var booleanFields: Set<Int> = []
    /// The fields (by index) whose values the file wrote as arrays or objects (loaded as their
    /// compact JSON text).
    package var jsonFields: Set<Int> = []
    /// The fields (by index) whose values the file wrote as ISO-8601 texts of one form other
    /// than the writers' `yyyy-mm-ddThh:mm:ss.sssZ`: that form.
    package var dateStyles: [Int: DateStyle] = [:]
    /// The root object's members in order, `features` among them (its value not kept).
    package var root: JSONObject
    /// The members of a feature object, in the order the file's first feature had them
    /// (completed with those it lacked).
    package var featureMembers: [FeatureMember]

    /// The default order of a feature's members: `type`, `id`, `geometry`, `properties` (the
    /// query writers' order).
    /// A representation of a file in `format` whose object IDs came from `objectIDs`, with the
    /// root object's other members and the order of a feature's members.
    package init(format: Format, objectIDs: ObjectIDSource, root: JSONObject, featureMembers: [FeatureMember]) {
        self.format = format
        self.objectIDs = objectIDs
        self.root = root
        self.featureMembers = featureMembers
    }

    package static let defaultFeatureMembers: [FeatureMember] = [.type, .id, .geometry, .attributes]

    /// `order` with its repetitions removed and the members it lacks added: `type` first, `id`
    /// after `type`, `geometry` and `properties` at the end.
    package static func completed(_ order: [FeatureMember]) -> [FeatureMember] {
        var result: [FeatureMember] = []
        for member in order where !result.contains(member) { result.append(member) }
        if !result.contains(.type) { result.insert(.type, at: 0) }
        if !result.contains(.id), let type = result.firstIndex(of: .type) { result.insert(.id, at: type + 1) }
        for member in [FeatureMember.geometry, .attributes] where !result.contains(member) { result.append(member) }
        return result
    }
}
