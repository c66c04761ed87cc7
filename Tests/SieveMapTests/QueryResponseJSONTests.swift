import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import Testing

@testable import SieveMap

/// The REST response documents that carry no features: count, object IDs, count and extent.
@Suite("Query response documents")
struct QueryResponseJSONTests {
    @Test func responseDocuments() {
        #expect(QueryResponseJSON.count(0) == #"{"count":0}"#)
        #expect(
            QueryResponseJSON.objectIDs([1, -2, Int64.max, Int64.min], objectIdFieldName: "OID")
                == #"{"objectIdFieldName":"OID","objectIds":[1,-2,9223372036854775807,-9223372036854775808]}"#)
    }

    @Test func extremeValues() {
        #expect(QueryResponseJSON.objectIDs([Int64.min, Int64.max], objectIdFieldName: "OID")
            == #"{"objectIdFieldName":"OID","objectIds":[-9223372036854775808,9223372036854775807]}"#)
        #expect(QueryResponseJSON.count(Int.max) == #"{"count":9223372036854775807}"#)
    }

    @Test func extents() {
        // An empty extent (no selected row has a geometry) has null coordinates.
        #expect(
            QueryResponseJSON.extent(count: 1, extent: .empty, spatialReference: .wgs84)
                == #"{"count":1,"extent":{"xmin":null,"ymin":null,"xmax":null,"ymax":null,"spatialReference":{"wkid":4326}}}"#)
        #expect(
            QueryResponseJSON.extent(
                count: 5, extent: Envelope(xmin: -5, ymin: -1, xmax: 3, ymax: 7.5), spatialReference: SpatialReference(wkid: 102100))
                == #"{"count":5,"extent":{"xmin":-5,"ymin":-1,"xmax":3,"ymax":7.5,"spatialReference":{"wkid":102100,"latestWkid":3857}}}"#)
    }
}
