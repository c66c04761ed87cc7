import Testing
import SieveGeometry

/// `keepingOrdinates(_:)` drops z, m or both from every position and keeps everything else.
@Suite struct KeepingOrdinatesTests {
    @Test func eachKindDropsWhatTheLayoutDoesNotAllow() throws {
        let line = try Polyline(paths: [[Point(x: 0, y: 1, z: 2, m: 3), Point(x: 4, y: 5, z: 6, m: 7)]])
        let noM = Geometry.polyline(line).keepingOrdinates(.xyz)
        guard case .polyline(let kept) = noM else { Issue.record("not a polyline: \(noM)"); return }
        #expect(kept.coordinates.layout == .xyz)
        #expect(kept.coordinates.values == [0, 1, 2, 4, 5, 6])
        #expect(kept.pathOffsets == line.pathOffsets)
        #expect(kept.envelope == line.envelope)
        guard case .polyline(let flat) = Geometry.polyline(line).keepingOrdinates(.xy) else { Issue.record("not a polyline"); return }
        #expect(flat.coordinates.values == [0, 1, 4, 5])
        guard case .polyline(let onlyM) = Geometry.polyline(line).keepingOrdinates(.xym) else { Issue.record("not a polyline"); return }
        #expect(onlyM.coordinates.values == [0, 1, 3, 4, 5, 7])

        // A polygon with a hole keeps its rings and parts.
        let polygon = try Polygon(
            parts: [[
                [Point(x: 0, y: 0, z: 1), Point(x: 10, y: 0, z: 1), Point(x: 10, y: 10, z: 1), Point(x: 0, y: 0, z: 1)],
                [Point(x: 2, y: 1, z: 5), Point(x: 8, y: 7, z: 5), Point(x: 8, y: 1, z: 5), Point(x: 2, y: 1, z: 5)],
            ]])
        guard case .polygon(let flatPolygon) = Geometry.polygon(polygon).keepingOrdinates(.xy) else { Issue.record("not a polygon"); return }
        #expect(flatPolygon.ringOffsets == polygon.ringOffsets && flatPolygon.partOffsets == polygon.partOffsets)
        #expect(flatPolygon.coordinates.layout == .xy && flatPolygon.coordinates.count == 8)
        #expect(Set(flatPolygon.ring(1).map(\.x)) == [2, 8] && flatPolygon.ring(1).allSatisfy { $0.z == nil })

        #expect(Geometry.point(Point(x: 1, y: 2, z: 3, m: 4)).keepingOrdinates(.xym) == .point(Point(x: 1, y: 2, m: 4)))
        let multipoint = Geometry.multipoint(try Multipoint(points: [Point(x: 1, y: 2, m: 9)]))
        #expect(multipoint.keepingOrdinates(.xyz).layout == .xy)
        // What carries nothing to drop comes back as it is; a collection, member by member.
        let plain = Geometry.point(Point(x: 1, y: 2))
        #expect(plain.keepingOrdinates(.xy) == plain)
        #expect(Geometry.polyline(line).keepingOrdinates(.xyzm) == .polyline(line))
        let collection = Geometry.collection(GeometryCollection([.point(Point(x: 1, y: 2, z: 3)), plain]))
        #expect(collection.keepingOrdinates(.xy) == .collection(GeometryCollection([plain, plain])))
    }
}
