import SieveColumns
import SieveFeatures
import SieveFormats
import SieveGeometry

extension FeatureTable {
    /// A new feature made from `template` (not added: pass it to
    /// ``EditableFeatureTable/addFeatures(_:rollbackOnFailure:user:)``): the fields' default
    /// values, then the template's prototype attributes (names matched ignoring case), and the
    /// type's ID when the template is one of a type's.
    public func createFeature(template: FeatureTemplate, geometry: Geometry? = nil) -> FeatureEdit {
        var edit = defaultFeature(geometry: geometry)
        if let typeField = schema.typeIdFieldName,
            let owner = schema.types.first(where: { $0.templates.contains(template) })
        {
            edit.attributes[typeField] = owner.id
        }
        for (name, value) in template.prototypeAttributes {
            edit.attributes[schema.field(named: name)?.name ?? name] = value
        }
        return edit
    }

    /// A new feature of `type`: made from the type's first template when it has one, else the
    /// fields' default values and the type's ID.
    public func createFeature(type: FeatureType, geometry: Geometry? = nil) -> FeatureEdit {
        if let template = type.templates.first {
            var edit = createFeature(template: template, geometry: geometry)
            if let typeField = schema.typeIdFieldName { edit.attributes[typeField] = type.id }
            return edit
        }
        var edit = defaultFeature(geometry: geometry)
        if let typeField = schema.typeIdFieldName { edit.attributes[typeField] = type.id }
        return edit
    }

    /// The default values of the fields that have one (the object-ID field never does).
    private func defaultFeature(geometry: Geometry?) -> FeatureEdit {
        var attributes: [String: ScalarValue] = [:]
        for field in schema.fields where field.type != .oid {
            if let value = field.defaultValue { attributes[field.name] = value }
        }
        return FeatureEdit(attributes: attributes, geometry: geometry)
    }
}
