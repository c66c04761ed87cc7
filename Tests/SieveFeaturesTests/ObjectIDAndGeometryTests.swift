import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Testing

@Suite("Object IDs")
struct ObjectIDTests {
    @Test(arguments: ["OBJECTID", "objectid", "ObjectId"])
    func objectIDProperty(name: String) throws {
        let text = featureCollection(
            [#"{"a":1,""# + name + #"":10}"#, #"{"a":2,""# + name + #"":20}"#], ids: ["1", "2"])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.objectIdFieldName == name)
        #expect(table.schema.fieldNames == ["a", name])
        #expect(table.schema.objectIdField.type == .oid)
        #expect(table.objectIDs == [10, 20])
        #expect(table.row(forObjectID: 20) == 1)
        #expect(table.schema.field(named: "OBJECTID")?.name == name)
    }

    @Test func objectIDPropertyWithANullIsAnOrdinaryField() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"OBJECTID":5}"#, #"{"OBJECTID":null}"#]))
        #expect(table.schema.fieldNames == ["OBJECTID_1", "OBJECTID"])
        #expect(table.schema.objectIdFieldName == "OBJECTID_1")
        #expect(table.objectIDs == [1, 2])
        #expect(table.value(row: 0, field: "objectid") == .integer(5))
    }

    @Test func featureIDs() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection(["{}", "{}", "{}"], ids: ["7", "3", "-1"]))
        #expect(table.schema.objectIdFieldName == "OBJECTID")
        #expect(table.objectIDs == [7, 3, -1])
        #expect(table.value(row: 1, field: "OBJECTID") == .integer(3))
    }

    @Test(arguments: [nil, ["1", "\"b\""], ["1", "2.5"]] as [[String]?])
    func positionFallback(ids: [String]?) throws {
        let table = try FeatureTable.load(geoJSON: featureCollection(["{}", "{}"], ids: ids))
        #expect(table.objectIDs == [1, 2])
        #expect(table.column(named: "OBJECTID")?.validity == nil)
    }

    @Test func duplicateFeatureIDs() {
        let error = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection(["{}", "{}", "{}"], ids: ["4", "5", "4"]))
        }
        #expect(error?.kind == .duplicateObjectID)
        #expect(error?.featureIndex == 2)
        #expect(error?.objectID == 4)
        #expect(error?.message.contains("features[0] and features[2]") == true)
        #expect(error?.description.hasPrefix("duplicate object ID in features[2] (object ID 4): ") == true)
    }

    @Test func duplicateObjectIDProperty() {
        let error = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection([#"{"objectid":1}"#, #"{"objectid":1}"#]))
        }
        #expect(error?.kind == .duplicateObjectID)
        #expect(error?.message.contains("features[0] and features[1]") == true)
        do {
            _ = try FeatureTable.load(geoJSON: featureCollection([#"{"objectid":1}"#, #"{"objectid":1}"#]))
        } catch FeatureTableError.duplicateObjectID {
            // matched by kind
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Suite("Geometry and spatial reference")
struct GeometryLoadingTests {
    static let point = #"{"type":"Point","coordinates":[1,2]}"#
    static let multipoint = #"{"type":"MultiPoint","coordinates":[[3,4],[5,6]]}"#
    static let line = #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#
    static let multiline = #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3]]]}"#
    static let polygon = #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#
    static let multipolygon = #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]]]}"#

    @Test func nullGeometryIsKept() throws {
        let text = featureCollection([#"{"a":1}"#, #"{"a":2}"#], geometries: [Self.point, "null"])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.count == 2)
        #expect(table.schema.geometryType == .point)
        #expect(table.geometry(row: 1) == nil)
        #expect(table.envelope(row: 1) == nil)
        #expect(table.xmin[1].isNaN && table.ymin[1].isNaN && table.xmax[1].isNaN && table.ymax[1].isNaN)
        #expect(table.envelope(row: 0) == Envelope(xmin: 1, ymin: 2, xmax: 1, ymax: 2))
        #expect(table.value(row: 1, field: "a") == .integer(2))
    }

    @Test func noGeometryAtAll() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection(["{}"]))
        #expect(table.schema.geometryType == nil)
        #expect(table.extent.isEmpty)
    }

    @Test func pointsAndMultipointsMakeAMultipointTable() throws {
        let text = featureCollection(["{}", "{}", "{}"], geometries: [Self.point, Self.multipoint, "null"])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.geometryType == .multipoint)
        guard case .multipoint(let first)? = table.geometry(row: 0) else {
            Issue.record("the point was not stored as a multipoint")
            return
        }
        #expect(first.points == [Point(x: 1, y: 2)])
        #expect(table.extent == Envelope(xmin: 1, ymin: 2, xmax: 5, ymax: 6))
    }

    @Test(arguments: [
        (line, multiline, GeometryType.polyline), (polygon, multipolygon, .polygon), (multiline, line, .polyline),
    ])
    func singleAndMultiMix(first: String, second: String, type: GeometryType) throws {
        let table = try FeatureTable.load(geoJSON: featureCollection(["{}", "{}"], geometries: [first, second]))
        #expect(table.schema.geometryType == type)
    }

    @Test func mixedGeometryTypesAreAnError() {
        let text = featureCollection(
            ["{}", "{}", "{}"], ids: ["10", "11", "12"], geometries: [Self.point, "null", Self.line])
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: text) }
        #expect(error?.kind == .mixedGeometryTypes)
        #expect(error?.featureIndex == 2)
        #expect(error?.objectID == 12)
        #expect(error?.message.contains("LineString") == true)
        #expect(error?.message.contains("features[0] has a Point") == true)
        #expect(error?.description.contains(" in features[2] (object ID 12): ") == true)
        #expect(error?.description.hasPrefix("mixed geometry types at line 1, column ") == true)
    }

    @Test func geometryCollectionsAreRejected() {
        let collection = #"{"type":"GeometryCollection","geometries":[]}"#
        let error = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection(["{}"], geometries: [collection]))
        }
        #expect(error?.kind == .invalidGeometry)
    }

    @Test func invalidGeometryNamesTheFeatureAndPosition() {
        let bad = #"{"type":"LineString","coordinates":[[0,0]]}"#
        let text = featureCollection(["{}", "{}"], geometries: [Self.line, bad])
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: text) }
        #expect(error?.kind == .invalidGeometry)
        #expect(error?.featureIndex == 1)
        #expect(error?.objectID == 2)
        #expect(error?.position != nil)
    }

    @Test(arguments: [
        (#"{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2263"}}"#, 2263),
        (#"{"type":"name","properties":{"name":"EPSG:2263"}}"#, 2263),
        (#"{"type":"name","properties":{"name":"urn:ogc:def:crs:OGC:1.3:CRS84"}}"#, 4326),
        (#"{"type":"name","properties":{"name":"http://www.opengis.net/def/crs/EPSG/0/3857"}}"#, 3857),
        (#"{"type":"EPSG","properties":{"code":32618}}"#, 32618),
        ("null", 4326),
    ])
    func crsMember(crs: String, wkid: Int) throws {
        let text = featureCollection(["{}"], geometries: [#"{"type":"Point","coordinates":[987654.3,198765.4]}"#], crs: crs)
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.spatialReference.wkid == wkid)
        #expect(table.schema.spatialReference.wkid == wkid)
        // Coordinates are kept as they are: the reference is a label.
        #expect(table.xmin[0] == 987654.3)
    }

    @Test func unknownCRSIsAnError() {
        let crs = #"{"type":"name","properties":{"name":"my-own-crs"}}"#
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(["{}"], crs: crs)) }
        #expect(error?.kind == .unsupportedSpatialReference)
    }
}
