import ArgumentParser
import Foundation
import GeoSieve
import SieveClients
import SieveJSON

/// `geosieve info SOURCE… [--pretty] [--output FILE]`: what a source holds, as `ogrinfo -so`
/// summarises a dataset: each layer's name, geometry type, feature count, extent, spatial
/// reference, object-ID and display fields, and its fields with their types and NULL counts.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Summarise a source: its layers, fields (types, NULL counts), extent, reference and feature count.",
        discussion: """
            Prints {"layers":[{"name":…,"source":…,"geometryType":…,"featureCount":N,
            "extent":{"xmin":…,"ymin":…,"xmax":…,"ymax":…},"spatialReference":{"wkid":…},
            "objectIdField":…,"displayField":…,"fields":[{"name":…,"type":…,"alias":…,
            "length":…,"nullable":…,"nullCount":N},…]},…]}, one entry per layer: every
            feature table of a GeoPackage and every shapefile of a zip archive named without a
            layer, else the one layer SOURCE
            names. The source is read whole (a service layer is fetched, a PostGIS table read);
            extent is null for a layer without geometries, displayField the field identify
            labels features with (null without a string field).

            Examples:
              geosieve info Tests/Fixtures/naturalearth_lowres.geojson --pretty
              geosieve info data.gpkg
              geosieve info data.gpkg:roads nybb.geojson
            """
    )

    @Argument(help: "Sources: GeoJSON, Esri JSON, FILE.gpkg[:LAYER] (every layer without one), shapefiles (FILE.zip: every one without a layer), CSV, postgresql:// tables, services.")
    var sources: [String]

    @OptionGroup var documentOutput: DocumentOutputOptions

    @OptionGroup var loading: LoadingOptions

    func run() async throws {
        guard !sources.isEmpty else { throw CommandFailure("info needs at least one SOURCE") }
        var layers: [JSONValue] = []
        for source in sources {
            var names = [source]
            if let gpkg = CommandSource.geoPackage(source), gpkg.layer == nil {
                try InputFiles.checkReadable(gpkg.path)
                do {
                    names = try GeoPackage.featureLayers(at: gpkg.path).map { "\(gpkg.path):\($0)" }
                } catch {
                    throw CommandFailure.unreadable("\(source): \(error)")
                }
            } else if case .shapefile(let path, nil) = try? SourceLocator(source), !path.lowercased().hasSuffix(".shp") {
                // Every shapefile of a zip archive.
                try InputFiles.checkReadable(path)
                do {
                    names = try Shapefile.layers(at: path).map { "\(path):\($0)" }
                } catch {
                    throw CommandFailure.unreadable("\(source): \(error)")
                }
            }
            for name in names {
                let (table, layerName) = try await CommandSource.loadTable(name, loading: loading, needs: .everything("info"))
                layers.append(Self.summary(of: table, name: layerName, source: name))
            }
        }
        var root = JSONObject()
        root.append("layers", .array(layers))
        var json: [UInt8] = []
        JSONWriter.write(.object(root), into: &json)
        try documentOutput.write(json)
    }

    /// One layer's entry.
    static func summary(of table: FeatureTable, name: String, source: String) -> JSONValue {
        let schema = table.schema
        var layer = JSONObject()
        layer.append("name", .string(name))
        layer.append("source", .string(source))
        layer.append("geometryType", schema.geometryType.map { .string($0.rawValue) } ?? .null())
        layer.append("featureCount", .integer(table.featureCount))
        let extent = table.extent
        if schema.geometryType == nil || extent.isEmpty {
            layer.append("extent", .null())
        } else {
            var box = JSONObject()
            box.append("xmin", .double(extent.xmin))
            box.append("ymin", .double(extent.ymin))
            box.append("xmax", .double(extent.xmax))
            box.append("ymax", .double(extent.ymax))
            layer.append("extent", .object(box))
        }
        layer.append("spatialReference", JSONOutput.spatialReferenceValue(schema.spatialReference))
        layer.append("objectIdField", .string(schema.objectIdFieldName))
        layer.append("displayField", schema.displayFieldIndex.map { .string(schema.fields[$0].name) } ?? .null())
        // NULLs among the features: the validity bitmaps' counts, unless deleted rows lie among them.
        let liveRows = table.deletedRowCount == 0 ? nil : table.liveRows
        var fields: [JSONValue] = []
        for (index, field) in schema.fields.enumerated() {
            var entry = JSONObject()
            entry.append("name", .string(field.name))
            entry.append("type", .string(field.type.rawValue))
            entry.append("alias", .string(field.alias))
            if let length = field.length { entry.append("length", .integer(length)) }
            entry.append("nullable", .bool(field.nullable))
            let column = table.columns[index]
            let nulls = liveRows.map { rows in rows.count { column.isNull($0) } } ?? column.validity?.nullCount ?? 0
            entry.append("nullCount", .integer(nulls))
            fields.append(.object(entry))
        }
        layer.append("fields", .array(fields))
        return .object(layer)
    }
}
