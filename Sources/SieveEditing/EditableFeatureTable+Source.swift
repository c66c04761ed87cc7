import SieveFeatures
import SieveFormats

extension EditableFeatureTable: FeatureSource {
    /// The fields of the table.
    public var schema: Schema { snapshot.schema }
    /// Query, statistics, editing, in memory.
    public var capabilities: FeatureSourceCapabilities { [.query, .statistics, .editing, .inMemory] }
    /// The latest published snapshot: a query sees every batch applied before it and none
    /// half-applied.
    public var inMemoryTable: FeatureTable? { snapshot }
}
