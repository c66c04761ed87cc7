// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
import SieveFeatures
import SieveEditing
import SieveFormats

extension ServiceFeatureTable: FeatureSource {
    /// The fields of the service's layer or collection.
    public var schema: Schema { currentTable.schema }

    /// Query, statistics and in memory: the table answers from its local cache.
    public var capabilities: FeatureSourceCapabilities { [.query, .statistics, .inMemory] }

    /// The local cache as it is now (what the request mode has read so far).
    public var inMemoryTable: FeatureTable? { currentTable }
}
#endif
