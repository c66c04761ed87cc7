import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap

/// The HTML face of the OGC API service (`f=html`, or a browser's `Accept: text/html`): plain
/// server-rendered pages with links between them, a table of the features and a map preview —
/// the layer drawn as inline SVG by GeoSieve's own renderer, the page's features selected.
/// Nothing is loaded from elsewhere.
enum OGCHTML {
    /// Whether the request asks for HTML: `f=html`, or no `f` and an `Accept` header naming
    /// `text/html` (browsers), which GDAL and OWSLib never send.
    static func wanted(_ parameters: RequestParameters, accept: String?) -> Bool {
        if let format = parameters["f"] { return format.lowercased() == "html" }
        return accept?.lowercased().contains("text/html") ?? false
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A whole page.
    static func page(_ title: String, _ body: String) -> ServiceResponse {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#222}\
            nav a{margin-right:1.2em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;\
            text-align:left;vertical-align:top}th{background:#f4f4f4}.map svg{border:1px solid #bbb;max-width:100%;height:auto}\
            code{background:#f4f4f4;padding:0 .2em}</style></head>
            <body><nav><a href="/">Map</a><a href="/ogc?f=html">Home</a><a href="/ogc/collections?f=html">Collections</a>\
            <a href="/ogc/conformance?f=html">Conformance</a><a href="/ogc/api">API definition</a></nav>
            <h1>\(escape(title))</h1>
            \(body)
            </body></html>
            """
        return ServiceResponse(contentType: "text/html; charset=utf-8", body: Array(html.utf8))
    }

    /// The landing page.
    static func landing(_ catalog: ServedCatalog, configuration: ServerConfiguration) -> ServiceResponse {
        let items = catalog.tables.map { "<li><a href=\"/ogc/collections/\(escape($0.id))?f=html\">\(escape($0.title))</a></li>" }
        return page(
            configuration.title,
            "<p>Feature collections served as OGC API – Features and as ArcGIS REST feature services, "
                + "and all of them on <a href=\"/\">an interactive map</a>.</p><ul>\(items.joined())</ul>"
                + "<p>As JSON: <a href=\"/ogc?f=json\">this page</a>, <a href=\"/ogc/collections?f=json\">collections</a>.</p>")
    }

    /// The conformance classes.
    static func conformance(_ classes: [String]) -> ServiceResponse {
        page("Conformance", "<ul>" + classes.map { "<li><code>\(escape($0))</code></li>" }.joined() + "</ul>")
    }

    /// The collections.
    static func collections(_ catalog: ServedCatalog) -> ServiceResponse {
        var rows = ""
        for served in catalog.tables {
            let id = escape(served.id)
            let count = (try? served.featureCount()).map(String.init) ?? ""
            rows += "<tr><td><a href=\"/ogc/collections/\(id)?f=html\">\(escape(served.title))</a></td>"
            rows += "<td>\(count)</td><td>\(escape(served.schema.geometryType?.rawValue ?? "none"))</td>"
            rows += "<td><a href=\"/ogc/collections/\(id)/items?f=html\">items</a> · <a href=\"/ogc/collections/\(id)/queryables?f=html\">queryables</a> · "
            rows += "<a href=\"/arcgis/rest/services/\(id)/FeatureServer/0?f=pjson\">ArcGIS layer</a></td></tr>"
        }
        return page("Collections", "<table><tr><th>Collection</th><th>Features</th><th>Geometry</th><th>Links</th></tr>\(rows)</table>")
    }

    /// One collection, with a map of all of it.
    static func collection(_ served: ServedTable) -> ServiceResponse {
        let id = escape(served.id)
        var body = "<p>\(escape(served.description))</p>"
        let count = (try? served.featureCount()).map(String.init) ?? "?"
        body += "<p>\(count) features; fields: " + served.visibleSchema.fields.map { "<code>\(escape($0.name))</code>" }.joined(separator: ", ") + "</p>"
        body += "<p><a href=\"/ogc/collections/\(id)/items?f=html\">Browse the features</a> · <a href=\"/ogc/collections/\(id)/queryables?f=html\">Queryables</a> · "
        body += "<a href=\"/ogc/collections/\(id)?f=json\">JSON</a></p>"
        body += map(served, selecting: [], extent: nil)
        return page(served.title, body)
    }

    /// A page of features: the map with them selected, their properties and the paging links
    /// (`pages`: label and relative URL).
    static func items(
        _ served: ServedTable, result: FeatureQueryResult, matched: Int, pages: [(label: String, href: String)], offset: Int
    ) -> ServiceResponse {
        var body = "<p>Features \(result.isEmpty ? 0 : offset + 1) to \(offset + result.count) of \(matched).</p><p>"
        for page in pages { body += "<a href=\"\(escape(page.href))\">\(page.label)</a> " }
        body += "</p>"
        var extent = Envelope.empty
        for position in result.indices {
            if let envelope = result.table.envelope(row: result.rows[position]) { extent.expand(toInclude: envelope) }
        }
        body += map(served, selecting: result.objectIDs, extent: extent.isEmpty ? nil : extent)
        body += table(result, collection: served.id)
        return page(served.title, body)
    }

    /// One feature.
    static func item(_ served: ServedTable, result: FeatureQueryResult) -> ServiceResponse {
        let extent = result.rows.first.flatMap { result.table.envelope(row: $0) }
        return page("\(served.title): feature \(result.objectIDs.first.map(String.init) ?? "")", map(served, selecting: result.objectIDs, extent: extent) + table(result, collection: served.id))
    }

    /// The queryables.
    static func queryables(_ served: ServedTable) -> ServiceResponse {
        let rows = served.visibleSchema.fields.map { "<tr><td><code>\(escape($0.name))</code></td><td>\(escape($0.type.rawValue))</td></tr>" }
        return page("\(served.title): queryables", "<table><tr><th>Property</th><th>Type</th></tr>\(rows.joined())</table>")
    }

    /// The features' properties as a table, the object ID linking to the feature's page.
    static func table(_ result: FeatureQueryResult, collection: String) -> String {
        let fields = result.fields
        var html = "<table><tr>" + fields.map { "<th>\(escape($0.name))</th>" }.joined() + "</tr>"
        let objectIDIndex = result.table.schema.objectIdFieldIndex
        for row in result.rows {
            html += "<tr>"
            for index in result.fieldIndices {
                let value = result.table.value(row: row, fieldIndex: index)
                let text = escape(display(value, dateOnly: result.table.schema.fields[index].type == .dateOnly))
                if index == objectIDIndex {
                    html += "<td><a href=\"/ogc/collections/\(escape(collection))/items/\(text)?f=html\">\(text)</a></td>"
                } else {
                    html += "<td>\(text)</td>"
                }
            }
            html += "</tr>"
        }
        return html + "</table>"
    }

    /// A value as text: dates in ISO 8601 (a date-only field's days, `dateOnly`, as
    /// `yyyy-mm-dd`), NULL as an empty cell.
    static func display(_ value: ScalarValue, dateOnly: Bool = false) -> String {
        switch value {
        case .null: ""
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .string(let text): text
        case .date(let milliseconds): CivilTime.format(milliseconds: milliseconds, dateOnlyAtMidnight: dateOnly)
        case .boolean(let flag): flag ? "true" : "false"
        }
    }

    /// The layer drawn around `extent` (default: the whole layer) with `objectIDs` selected, as
    /// inline SVG; empty when there is nothing to draw.
    static func map(_ served: ServedTable, selecting objectIDs: [Int64], extent: Envelope?) -> String {
        var layer = served.layer
        guard layer.schema.geometryType != nil, let full = try? layer.fullExtent(), !full.isEmpty else { return "" }
        var area = extent ?? full
        // Some room around the features; a point (or a line along an axis) gets a window of its own.
        let margin = Swift.max(Swift.max(area.xmax - area.xmin, area.ymax - area.ymin) * 0.1, Swift.max(full.xmax - full.xmin, full.ymax - full.ymin) * 0.002, 1e-9)
        area = Envelope(xmin: area.xmin - margin, ymin: area.ymin - margin, xmax: area.xmax + margin, ymax: area.ymax + margin)
        try? layer.selectFeatures(objectIDs: objectIDs)
        guard let rendering = try? Map(layers: [layer], spatialReference: layer.schema.spatialReference).renderSVG(extent: area, width: 720, height: 400)
        else { return "" }
        var svg = String(decoding: rendering.svg, as: UTF8.self)
        // Inline SVG in HTML takes no XML declaration.
        if svg.hasPrefix("<?xml"), let end = svg.range(of: "?>") { svg = String(svg[end.upperBound...].drop { $0.isNewline }) }
        return "<div class=\"map\">" + svg + "</div>"
    }
}
