import SieveColumns
import SieveFeatures
import SieveGeometry

extension FeatureTable {
    /// This table with `fields` (matched to its own by name, ignoring case): a column of the same
    /// type is shared, one of another type converted value by value as the loaders convert
    /// properties to a schema's fields (numbers and numeric strings to numbers, anything to
    /// text, ISO-8601 strings or epoch milliseconds to dates), a field it lacks is NULL, and
    /// fields `fields` lack are dropped — how the first features read from a collection take the
    /// types its queryables declare (later pages are read with the cache's fields directly). The
    /// object-ID field must be among `fields`, as an integer field; rows, geometries and object
    /// IDs stay as they are. Converted from the stored values: a date becomes epoch-millisecond
    /// text, a loaded boolean 0 or 1.
    /// - Throws: ``FeatureTableError/Kind/conversionFailed`` naming the field and object ID of a
    ///   value that does not fit; ``FeatureTableError/Kind/invalidSchema`` for fields that cannot
    ///   make a schema.
    package func conformed(to fields: [Field]) throws(FeatureTableError) -> FeatureTable {
        let target = try Schema(
            fields: fields, objectIdFieldName: schema.objectIdFieldName, globalIdFieldName: nil, displayFieldName: nil,
            geometryType: schema.geometryType, spatialReference: schema.spatialReference)
        var converted: [Column] = []
        converted.reserveCapacity(fields.count)
        for field in target.fields {
            guard let index = schema.index(ofField: field.name) else {
                var builder = TypedColumnBuilder(type: field.type, capacity: count)
                builder.appendNulls(count)
                converted.append(builder.finish())
                continue
            }
            if schema.fields[index].columnType == field.columnType {
                converted.append(columns[index])
                continue
            }
            var builder = TypedColumnBuilder(type: field.type, capacity: count)
            for row in 0..<count {
                let value = self.value(row: row, fieldIndex: index)
                do throws(ConversionFailure) {
                    builder.append(try ValueConversion.scalar(ValueConversion.json(value), type: field.type))
                } catch {
                    throw FeatureTableError(
                        .conversionFailed, error.message, objectID: objectID(row: row),
                        fieldName: field.name)
                }
            }
            converted.append(builder.finish())
        }
        return replacing(schema: target, columns: converted)
    }
}
