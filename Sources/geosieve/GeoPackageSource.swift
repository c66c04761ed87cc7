import Foundation
import GeoSieve

/// Sources that are GeoPackage layers: `FILE.gpkg` (the file's only feature table) or
/// `FILE.gpkg:LAYER`.
enum GeoPackageSource {
    /// The path and layer of `argument` when it names a GeoPackage (by the `.gpkg` extension,
    /// or `.gpkg:LAYER` after it), else `nil`. A file whose full name is `argument` is taken
    /// as it is: `a.gpkg:b` is a layer only when no file of that name exists.
    static func parse(_ argument: String) -> (path: String, layer: String?)? {
        guard let source = GeoPackage.source(argument) else { return nil }
        if source.layer != nil, FileManager.default.fileExists(atPath: argument) { return nil }
        return source
    }

    /// Reads the layer. Columns GeoSieve does not read (BLOB, types GeoPackage does not define)
    /// are left out with a note on standard error.
    /// - Throws: ``CommandFailure`` with status 1 when the file cannot be read, 2 when it is not
    ///   a GeoPackage, has no such layer (the message lists the layers) or holds bad values.
    /// `progress`, when given, shows how far the read has come.
    static func load(
        path: String, layer: String?, fields: [Field]?, progress: ProgressLine? = nil
    ) throws -> (table: FeatureTable, layerName: String) {
        defer { progress?.finish() }
        if fields != nil {
            throw CommandFailure("--schema applies to GeoJSON and Esri JSON sources, not to a GeoPackage (its columns are typed)")
        }
        try InputFiles.checkReadable(path)
        let result: GeoPackageLayer
        do {
            result = try GeoPackage.read(
                at: path, layer: layer, options: GeoPackageReadOptions(unsupportedFields: .skip),
                progress: progress.map { line in { (read: GeoPackageReadProgress) in line.update(read) } })
        } catch {
            if error.kind == .cannotOpen {
                throw CommandFailure.unreadable("cannot read \(path): \(error.message)")
            }
            throw CommandFailure("\(error)")
        }
        progress?.finish()
        for skipped in result.skippedFields {
            let type = skipped.declaredType.isEmpty ? "no declared type" : skipped.declaredType
            FileHandle.standardError.write(
                Data(
                    "note: \(JSONKey.abbreviated(path)): layer \(JSONKey.quoted(result.name)): column \(JSONKey.quoted(skipped.name)) (\(JSONKey.abbreviated(type))) is not read\n"
                        .utf8))
        }
        return (result.table, result.name)
    }
}
