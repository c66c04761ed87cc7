import SieveColumns
import SieveSQL

/// A schema is what a where clause binds against: field names resolve case-insensitively to
/// the table's columns, which are in schema order.
extension Schema: WhereClauseSchema {
    public func resolveField(_ name: String) -> (index: Int, name: String, type: ColumnType)? {
        guard let index = index(ofField: name) else { return nil }
        let field = fields[index]
        return (index, field.name, field.columnType)
    }
}
