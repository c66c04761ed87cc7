import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A table with an object-ID field and one geometry per WKT text (`nil` for none).
func svgTable(_ wkts: [String?], geometryType: GeometryType? = .polygon) throws -> FeatureTable {
    let schema = try Schema(
        fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: geometryType)
    let geometries = try wkts.map { wkt in try wkt.map { try Geometry(wkt: $0) } }
    let ids = Int64Column(values: (0..<wkts.count).map { Int64($0 + 1) })
    return try FeatureTable(schema: schema, columns: [.integer(ids)], geometries: geometries)
}

/// An element of a parsed SVG document: its name, attributes, and its ancestors' attributes
/// (outermost first).
struct SVGElement {
    let name: String
    let attributes: [String: String]
    let ancestors: [[String: String]]

    /// Whether an ancestor has attribute `name` equal to `value`.
    func isInside(_ name: String, _ value: String) -> Bool {
        ancestors.contains { $0[name] == value }
    }
}

/// Collects the elements of an XML document in document order.
final class SVGElementCollector: NSObject, XMLParserDelegate {
    var elements: [SVGElement] = []
    private var stack: [[String: String]] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        elements.append(SVGElement(name: elementName, attributes: attributeDict, ancestors: stack))
        stack.append(attributeDict)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        stack.removeLast()
    }
}

/// The error of a document that XMLParser does not accept.
struct MalformedXML: Error, CustomStringConvertible {
    let description: String
}

/// The elements of `svg`, which must be well-formed XML.
func parseSVG(_ svg: String) throws -> [SVGElement] {
    let parser = XMLParser(data: Data(svg.utf8))
    let collector = SVGElementCollector()
    parser.delegate = collector
    guard parser.parse() else {
        throw MalformedXML(description: "not well-formed: \(parser.parserError.map { "\($0)" } ?? "unknown error")")
    }
    return collector.elements
}

/// The `<path>` elements of `svg`.
func svgPaths(_ svg: String) throws -> [SVGElement] {
    try parseSVG(svg).filter { $0.name == "path" }
}

/// The number of subpaths (moveto commands) in a path's `d`.
func subpathCount(_ d: String) -> Int {
    d.filter { $0 == "M" }.count
}

/// A writer showing 0…`size` × 0…`size` map units on `pixels` × `pixels` pixels (so
/// `pixels / size` pixels per map unit and no widening).
func squareMap(size: Double = 10, pixels: Int = 100) throws -> SVGMapWriter {
    try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: size, ymax: size), width: pixels, height: pixels)
}

/// Draws every row of `table` with `style` on a ``squareMap(size:pixels:)`` and returns the
/// document (checked to be well-formed), its paths and what was drawn.
func renderSquare(
    _ table: FeatureTable, style: DrawStyle, size: Double = 10, pixels: Int = 100
) throws -> (svg: String, paths: [SVGElement], statistics: SVGLayerStatistics) {
    var map = try squareMap(size: size, pixels: pixels)
    let statistics = try map.addLayer(name: "layer", table: table, rows: Array(0..<table.count), style: { _ in style })
    let svg = map.svg()
    return (svg, try svgPaths(svg), statistics)
}
