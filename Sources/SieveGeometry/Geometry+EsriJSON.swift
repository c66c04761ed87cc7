import SieveJSON

extension Geometry {
    /// Reads an Esri JSON geometry object (the ArcGIS REST API geometry format), ignoring its
    /// spatial reference.
    ///
    /// See ``decodeEsriJSON(_:)-(String)`` for the accepted forms.
    /// - Throws: ``GeometryError/Kind/invalidJSON`` when the text is not JSON;
    ///   ``GeometryError/Kind/invalidEsriJSON`` when it is not a valid Esri JSON geometry.
    public init(esriJSON: String) throws(GeometryError) {
        self = try Self.decodeEsriJSON(esriJSON).geometry
    }

    /// Reads an Esri JSON geometry object and its spatial reference.
    ///
    /// The kind of geometry follows from its keys:
    /// - `x`, `y` (optional `z`, `m`): a point. `"x": null` or `"x": "NaN"` is the empty point.
    /// - `points`: a multipoint.
    /// - `paths`: a polyline.
    /// - `rings`: a polygon. Rings carry no part structure in Esri JSON; clockwise rings are
    ///   outer rings and counter-clockwise rings holes (see ``Polygon/init(esriRings:layout:)``).
    ///   A ring of 3 or more points whose last point differs from its first is closed by
    ///   repeating the first point, as ArcGIS does.
    /// - `xmin`, `ymin`, `xmax`, `ymax`: an envelope. `"xmin": null` or `"xmin": "NaN"` is
    ///   ``Envelope/empty``.
    ///
    /// `hasZ` and `hasM` tell what the 3rd and 4th numbers of each position are: with `hasZ`
    /// the 3rd is z; with `hasM` the next one is m (`null` meaning no measure). Without the
    /// flags positions are x, y and further numbers are ignored, as ArcGIS does.
    ///
    /// The optional `spatialReference` gives the result's spatial reference from its `wkid`
    /// (or, without one, its `latestWkid`); a spatial reference given only as `wkt` yields
    /// `nil`.
    ///
    /// ```swift
    /// let (geometry, reference) = try Geometry.decodeEsriJSON(
    ///     #"{"x":-118.15,"y":33.80,"spatialReference":{"wkid":4326}}"#)
    /// ```
    ///
    /// - Parameter text: The JSON text of one Esri JSON geometry.
    /// - Returns: The geometry and its spatial reference, if it names one by WKID.
    /// - Throws: ``GeometryError/Kind/invalidJSON`` when the text is not JSON;
    ///   ``GeometryError/Kind/invalidEsriJSON`` when no geometry key is present, a member has
    ///   the wrong JSON type, a position lacks ordinates, coordinates are not finite, a path
    ///   has fewer than 2 points, a ring fewer than 4 (after closing), envelope bounds are
    ///   inverted, or the geometry has curves (`curvePaths`, `curveRings`), which are not
    ///   supported. The error's ``GeometryError/position`` and ``GeometryError/path`` (such as
    ///   `rings[1]`) point at the offending member.
    public static func decodeEsriJSON(_ text: String) throws(GeometryError) -> (
        geometry: Geometry, spatialReference: SpatialReference?
    ) {
        let value = try JSONReader.parse(text)
        return try decodeEsriJSON(value, path: "")
    }

    /// Reads an Esri JSON geometry object from parsed JSON (see ``decodeEsriJSON(_:)-(String)``).
    ///
    /// `path` is the JSON path of `value` in its document (e.g. `features[3].geometry`, or `""`
    /// for the root); error paths are built on it.
    /// - Throws: ``GeometryError/Kind/invalidEsriJSON`` as ``decodeEsriJSON(_:)-(String)`` does.
    package static func decodeEsriJSON(_ value: JSONValue, path: String) throws(GeometryError) -> (
        geometry: Geometry, spatialReference: SpatialReference?
    ) {
        try EsriJSONDecoder.decode(value, path: path)
    }

    /// The `spatialReference` member of an Esri JSON object (a geometry, a feature set):
    /// `{"wkid": …}` or `{"latestWkid": …}`; `nil` when it is absent, `null` or WKT only.
    /// - Throws: ``GeometryError/Kind/invalidEsriJSON`` for a member that is not such an object.
    package static func esriJSONSpatialReference(of object: JSONObject, path: String) throws(GeometryError) -> SpatialReference? {
        try EsriJSONDecoder.spatialReference(object, path: path)
    }

    /// The geometry as compact Esri JSON text.
    ///
    /// - Point: `{"x":1,"y":2}` with `"z"` and `"m"` when present; the empty point is
    ///   `{"x":null,"y":null}`.
    /// - Multipoint, polyline, polygon: `points`, `paths`, `rings`, preceded by `"hasZ":true`
    ///   and `"hasM":true` when the geometry has z or m. A NaN m is written as `null`.
    /// - Polygon: the rings of all parts in order (each outer ring, then its holes), outer rings
    ///   clockwise and holes counter-clockwise, as Esri JSON requires to tell them apart.
    /// - Envelope: `{"xmin":…,"ymin":…,"xmax":…,"ymax":…}`; the empty envelope has `null` bounds.
    /// - `spatialReference` is added as `{"wkid":…}` (with `latestWkid` when it differs, e.g.
    ///   `{"wkid":102100,"latestWkid":3857}`).
    ///
    /// - Parameter spatialReference: The spatial reference to write with the geometry, if any.
    /// - Throws: ``GeometryError/Kind/invalidEsriJSON`` for a ``Geometry/collection(_:)``, which
    ///   Esri JSON cannot express (write its members one by one instead).
    public func esriJSON(spatialReference: SpatialReference? = nil) throws(GeometryError) -> String {
        JSONWriter.string(try esriJSONValue(spatialReference: spatialReference))
    }

    /// The geometry as an Esri JSON object (see ``esriJSON(spatialReference:)``).
    /// - Throws: ``GeometryError/Kind/invalidEsriJSON`` for a collection.
    package func esriJSONValue(spatialReference: SpatialReference? = nil) throws(GeometryError) -> JSONValue {
        var object = JSONObject()
        switch self {
        case .point(let point):
            if point.isEmpty {
                object.append("x", .null())
                object.append("y", .null())
            } else {
                object.append("x", .double(point.x))
                object.append("y", .double(point.y))
                if let z = point.z { object.append("z", .double(z)) }
                if let m = point.m { object.append("m", m.isNaN ? .null() : .double(m)) }
            }
        case .multipoint(let multipoint):
            EsriJSONEncoder.appendFlags(multipoint.coordinates.layout, to: &object)
            object.append("points", EsriJSONEncoder.positions(multipoint.coordinates, 0..<multipoint.coordinates.count))
        case .polyline(let polyline):
            EsriJSONEncoder.appendFlags(polyline.coordinates.layout, to: &object)
            let paths = (0..<polyline.pathCount).map {
                EsriJSONEncoder.positions(polyline.coordinates, polyline.pathRange($0))
            }
            object.append("paths", .array(paths))
        case .polygon(let polygon):
            let oriented = polygon.outerRingsCounterClockwise(false)
            EsriJSONEncoder.appendFlags(oriented.coordinates.layout, to: &object)
            let rings = (0..<oriented.ringCount).map {
                EsriJSONEncoder.positions(oriented.coordinates, oriented.ringRange($0))
            }
            object.append("rings", .array(rings))
        case .envelope(let envelope):
            let empty = envelope.isEmpty
            object.append("xmin", empty ? .null() : .double(envelope.xmin))
            object.append("ymin", empty ? .null() : .double(envelope.ymin))
            object.append("xmax", empty ? .null() : .double(envelope.xmax))
            object.append("ymax", empty ? .null() : .double(envelope.ymax))
        case .collection:
            throw GeometryError(
                .invalidEsriJSON,
                "a geometry collection has no Esri JSON form; write its members one by one")
        }
        if let spatialReference {
            var reference = JSONObject()
            reference.append("wkid", .integer(spatialReference.wkid))
            if spatialReference.latestWkid != spatialReference.wkid {
                reference.append("latestWkid", .integer(spatialReference.latestWkid))
            }
            object.append("spatialReference", .object(reference))
        }
        return .object(object)
    }
}

// MARK: - Writing

private enum EsriJSONEncoder {
    static func appendFlags(_ layout: CoordinateLayout, to object: inout JSONObject) {
        if layout.hasZ { object.append("hasZ", .bool(true)) }
        if layout.hasM { object.append("hasM", .bool(true)) }
    }

    static func positions(_ buffer: CoordinateBuffer, _ range: Range<Int>) -> JSONValue {
        let stride = buffer.layout.stride
        let mOffset = buffer.layout.mOffset
        var result: [JSONValue] = []
        result.reserveCapacity(range.count)
        buffer.values.withUnsafeBufferPointer { values in
            for i in range {
                let base = i * stride
                var numbers: [JSONValue] = []
                numbers.reserveCapacity(stride)
                for k in 0..<stride {
                    let value = values[base + k]
                    numbers.append(k == mOffset && value.isNaN ? .null() : .double(value))
                }
                result.append(.array(numbers))
            }
        }
        return .array(result)
    }
}

// MARK: - Reading

private enum EsriJSONDecoder {
    static func fail(_ message: String, _ value: JSONValue, _ path: String) -> GeometryError {
        GeometryError(.invalidEsriJSON, message, position: value.position, path: path)
    }

    static func decode(_ value: JSONValue, path: String) throws(GeometryError) -> (
        geometry: Geometry, spatialReference: SpatialReference?
    ) {
        guard case .object(let object, _) = value else {
            throw fail("expected an Esri JSON geometry object, found \(value.kindDescription)", value, path)
        }
        let reference = try spatialReference(object, path: path)
        for key in ["curvePaths", "curveRings"] {
            if let curves = object[key] {
                throw fail(
                    "\(key) (Esri JSON curves) are not supported; densify the geometry into paths or rings first",
                    curves, JSONPath.member(path, key))
            }
        }
        let geometry: Geometry
        if object.contains("x") {
            geometry = try point(object, value, path: path)
        } else if let points = object["points"] {
            geometry = try multipoint(points, object, value, path: path)
        } else if let paths = object["paths"] {
            geometry = try polyline(paths, object, value, path: path)
        } else if let rings = object["rings"] {
            geometry = try polygon(rings, object, value, path: path)
        } else if object.contains("xmin") {
            geometry = try envelope(object, value, path: path)
        } else {
            throw fail(
                "not an Esri JSON geometry: expected x/y, points, paths, rings or xmin/ymin/xmax/ymax", value, path)
        }
        return (geometry, reference)
    }

    /// `spatialReference`: `{"wkid": …}` or `{"latestWkid": …}`; `null`, absent or WKT-only
    /// give `nil`.
    static func spatialReference(_ object: JSONObject, path: String) throws(GeometryError) -> SpatialReference? {
        let referencePath = JSONPath.member(path, "spatialReference")
        guard let value = object["spatialReference"], !value.isNull else { return nil }
        guard case .object(let reference, _) = value else {
            throw fail("\"spatialReference\" must be an object, found \(value.kindDescription)", value, referencePath)
        }
        for key in ["wkid", "latestWkid"] {
            guard let id = reference[key], !id.isNull else { continue }
            guard let wkid = id.numberValue?.exactInt else {
                throw fail("\"\(key)\" must be an integer, found \(id.kindDescription)", id, JSONPath.member(referencePath, key))
            }
            return SpatialReference(wkid: wkid)
        }
        return nil
    }

    /// A required finite number member.
    static func number(_ object: JSONObject, _ key: String, _ owner: JSONValue, path: String) throws(GeometryError) -> Double {
        let memberPath = JSONPath.member(path, key)
        guard let value = object[key] else { throw fail("missing member \"\(key)\"", owner, memberPath) }
        guard let number = value.doubleValue else {
            throw fail("\"\(key)\" must be a number, found \(value.kindDescription)", value, memberPath)
        }
        guard number.isFinite else { throw fail("\"\(key)\" must be a finite number", value, memberPath) }
        return number
    }

    /// An optional finite number member (`null` or absent give `nil`).
    static func optionalNumber(_ object: JSONObject, _ key: String, path: String) throws(GeometryError) -> Double? {
        guard let value = object[key], !value.isNull else { return nil }
        return try number(object, key, value, path: path)
    }

    /// Whether a member is `null` or the string `"NaN"`, which Esri JSON uses for empty
    /// points and envelopes.
    static func isEmptyMarker(_ value: JSONValue?) -> Bool {
        guard let value else { return false }
        return value.isNull || value.stringValue == "NaN"
    }

    /// The `hasZ`/`hasM` flags.
    static func layout(_ object: JSONObject, path: String) throws(GeometryError) -> CoordinateLayout {
        var flags = [false, false]
        for (i, key) in ["hasZ", "hasM"].enumerated() {
            guard let value = object[key], !value.isNull else { continue }
            guard let flag = value.boolValue else {
                throw fail("\"\(key)\" must be true or false, found \(value.kindDescription)", value, JSONPath.member(path, key))
            }
            flags[i] = flag
        }
        return CoordinateLayout(hasZ: flags[0], hasM: flags[1])
    }

    static func point(_ object: JSONObject, _ value: JSONValue, path: String) throws(GeometryError) -> Geometry {
        if isEmptyMarker(object["x"]) {
            // The other ordinates of an empty point may be empty markers too, or numbers, but
            // not garbage (`"y": 1e999`).
            for key in ["y", "z", "m"] where !isEmptyMarker(object[key]) {
                _ = try optionalNumber(object, key, path: path)
            }
            return .point(.empty)
        }
        let x = try number(object, "x", value, path: path)
        let y = try number(object, "y", value, path: path)
        let z = try optionalNumber(object, "z", path: path)
        let m = try optionalNumber(object, "m", path: path)
        return .point(Point(x: x, y: y, z: z, m: m))
    }

    static func multipoint(_ points: JSONValue, _ object: JSONObject, _ value: JSONValue, path: String) throws(GeometryError) -> Geometry {
        try collected(points, member: "points", level: 1, object, path: path, as: .multipoint) { collector, layout throws(GeometryError) in
            .multipoint(try Multipoint(coordinates: collector.buffer(layout: layout)))
        }
    }

    static func polyline(_ paths: JSONValue, _ object: JSONObject, _ value: JSONValue, path: String) throws(GeometryError) -> Geometry {
        try collected(paths, member: "paths", level: 2, object, path: path, as: .polyline) { collector, layout throws(GeometryError) in
            .polyline(try Polyline(coordinates: collector.buffer(layout: layout), pathOffsets: collector.ringOffsets))
        }
    }

    static func polygon(_ rings: JSONValue, _ object: JSONObject, _ value: JSONValue, path: String) throws(GeometryError) -> Geometry {
        try collected(rings, member: "rings", level: 2, object, path: path, as: .polygon) { collector, layout throws(GeometryError) in
            let ringList = (0..<(collector.ringOffsets.count - 1)).map { collector.points(ofRing: $0, layout: layout) }
            return .polygon(try Polygon(esriRings: ringList, layout: layout))
        }
    }

    /// Collects the coordinates of `member` (`level` nested arrays of positions, read with the
    /// object's `hasZ`/`hasM`; rings closed for a polygon, as Esri JSON may leave them open) and
    /// builds the geometry from them; an error of the geometry model is located at the member it
    /// concerns.
    private static func collected(
        _ coordinates: JSONValue, member: String, level: Int, _ object: JSONObject, path: String,
        as target: JSONCoordinateCollector.Target,
        build: (JSONCoordinateCollector, CoordinateLayout) throws(GeometryError) -> Geometry
    ) throws(GeometryError) -> Geometry {
        let layout = try layout(object, path: path)
        let memberPath = JSONPath.member(path, member)
        var collector = JSONCoordinateCollector(kind: .invalidEsriJSON, rule: .esri(layout))
        try collector.collect(coordinates, level: level, path: memberPath)
        if target == .polygon { collector.closeRings() }
        do throws(GeometryError) {
            return try build(collector, layout)
        } catch {
            throw collector.locate(error, as: target, fallback: (coordinates.position, memberPath))
        }
    }

    static func envelope(_ object: JSONObject, _ value: JSONValue, path: String) throws(GeometryError) -> Geometry {
        if isEmptyMarker(object["xmin"]) {
            for key in ["ymin", "xmax", "ymax"] where !isEmptyMarker(object[key]) {
                _ = try optionalNumber(object, key, path: path)
            }
            return .envelope(.empty)
        }
        let xmin = try number(object, "xmin", value, path: path)
        let ymin = try number(object, "ymin", value, path: path)
        let xmax = try number(object, "xmax", value, path: path)
        let ymax = try number(object, "ymax", value, path: path)
        do throws(GeometryError) {
            return .envelope(try Envelope(validating: xmin, ymin, xmax, ymax))
        } catch {
            throw GeometryError(.invalidEsriJSON, error.message, position: value.position, path: path)
        }
    }
}
