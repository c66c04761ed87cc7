import SieveJSON

extension Geometry {
    /// Reads a geometry written in any of the notations GeoSieve accepts, telling them apart by
    /// their first character:
    ///
    /// - `{…}`: a JSON object; a GeoJSON geometry when it has a `type` member, an Esri JSON
    ///   geometry otherwise (whose `spatialReference`, if any, is returned);
    /// - `xmin,ymin,xmax,ymax`: an envelope, and `x,y`: a point (the ArcGIS REST simple syntax);
    /// - anything else: WKT.
    ///
    /// GeoJSON is WGS 84 by definition (RFC 7946), so its spatial reference is returned as 4326.
    /// WKT and the simple syntax carry none (`nil`).
    /// - Throws: ``GeometryError`` saying which notation was assumed and what is wrong where.
    public static func parse(_ text: String) throws(GeometryError) -> (geometry: Geometry, spatialReference: SpatialReference?) {
        let trimmed = text.drop { $0.isWhitespace }
        guard let first = trimmed.first else {
            throw GeometryError(.unrecognizedFormat, "empty text: expected WKT, GeoJSON, Esri JSON or xmin,ymin,xmax,ymax")
        }
        if first == "{" {
            return try parse(json: try JSONReader.parse(text))
        }
        if let numbers = simpleSyntaxNumbers(text) {
            if numbers.count == 4 {
                return (.envelope(try Envelope(validating: numbers[0], numbers[1], numbers[2], numbers[3])), nil)
            }
            let point = Point(x: numbers[0], y: numbers[1])
            guard point.isFinite else {
                throw GeometryError(.invalidCoordinates, "point coordinates must be finite numbers")
            }
            return (.point(point), nil)
        }
        return (try Geometry(wkt: text), nil)
    }

    /// A geometry object already read as JSON: GeoJSON when it has a `type` member (WGS 84),
    /// Esri JSON otherwise (with its `spatialReference`, if any), as ``parse(_:)`` reads `{…}`.
    /// - Throws: ``GeometryError`` saying which notation was assumed and what is wrong where.
    package static func parse(json value: JSONValue) throws(GeometryError) -> (geometry: Geometry, spatialReference: SpatialReference?) {
        if value["type"] != nil {
            return (try Geometry(geoJSON: value, path: ""), .wgs84)
        }
        return try Geometry.decodeEsriJSON(value, path: "")
    }

    /// The numbers of `x,y` or `xmin,ymin,xmax,ymax`, or `nil` when the text is not that.
    ///
    /// Decided from the first character and the number of commas before the text is split, so
    /// that a WKT text of many megabytes costs nothing here.
    private static func simpleSyntaxNumbers(_ text: String) -> [Double]? {
        guard let lead = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            (0x30...0x39).contains(lead) || lead == UInt8(ascii: "-") || lead == UInt8(ascii: "+") || lead == UInt8(ascii: ".")
        else { return nil }
        var commas = 0
        for byte in text.utf8 where byte == UInt8(ascii: ",") {
            commas += 1
            if commas > 3 { return nil }
        }
        let pieces = text.split(separator: ",", omittingEmptySubsequences: false)
        guard pieces.count == 2 || pieces.count == 4 else { return nil }
        var numbers: [Double] = []
        for piece in pieces {
            let trimmed = piece.trimmingWhitespace
            guard let first = trimmed.first, first.isNumber || first == "-" || first == "+" || first == ".",
                let value = Double(trimmed)
            else { return nil }
            numbers.append(value)
        }
        return numbers
    }
}

extension Substring {
    /// The text without leading and trailing whitespace.
    var trimmingWhitespace: Substring {
        var text = self
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
