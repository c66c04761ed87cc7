import SieveGeometry
import SieveJSON

/// What the JSON writers write of a schema in every answer, made once per table snapshot
/// (``FeatureTable/schemaJSON``) rather than once per request: each field's Esri layer-JSON
/// description (the `fields` array of an Esri JSON FeatureSet) and each field's name as a
/// member name. Both compact; an indented answer lays the descriptions out itself.
package struct SchemaJSON: Sendable {
    /// Each field's Esri layer-JSON object (``Field/esriJSON``), compact, in schema order.
    package let esriFields: [[UInt8]]
    /// The same objects with the types of ArcGIS before 11.2 (``EsriFieldTypes/before11_2``):
    /// the same bytes for every field but 64-bit integers and date-only fields.
    package let esriFieldsBefore11_2: [[UInt8]]
    /// Each field's name as a compact JSON member name, `"name":`, in schema order.
    package let memberNames: [[UInt8]]

    /// The pieces of `schema`.
    package init(_ schema: Schema) {
        let esriFields = schema.fields.map { field in
            var bytes: [UInt8] = []
            JSONWriter.write(field.esriJSONValue, into: &bytes)
            return bytes
        }
        self.esriFields = esriFields
        esriFieldsBefore11_2 = zip(schema.fields, esriFields).map { field, bytes in
            guard EsriFieldTypes.before11_2.declared(field.type) != field.type else { return bytes }
            var declared: [UInt8] = []
            JSONWriter.write(field.esriJSONValue(types: .before11_2), into: &declared)
            return declared
        }
        memberNames = schema.fields.map { field in
            var bytes: [UInt8] = []
            JSONWriter.writeString(field.name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            return bytes
        }
    }

    /// Appends the `fields` array of the fields at `indices` (schema indices, in output order),
    /// compact, their types declared as `types` says.
    package func appendEsriFields(_ indices: [Int], types: EsriFieldTypes = .all, to bytes: inout [UInt8]) {
        let objects = types == .all ? esriFields : esriFieldsBefore11_2
        bytes.append(UInt8(ascii: "["))
        for (i, index) in indices.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: objects[index])
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
