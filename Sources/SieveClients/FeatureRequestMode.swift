/// How a ``ServiceFeatureTable`` decides what to fetch (ArcGIS's `featureRequestMode`).
public enum FeatureRequestMode: Sendable, Equatable {
    /// Everything (passing the definition expression) at ``ServiceFeatureTable/load()``, paged,
    /// up to the service's limits; nothing after.
    case snapshot
    /// What the map shows: ``ServiceFeatureTable/display(_:)`` fetches the extent scaled by
    /// ``OnDemandOptions/bufferFactor`` when the extent leaves what was fetched, or the data
    /// expired.
    case onDemand(OnDemandOptions)
    /// Nothing at load; ``ServiceFeatureTable/selectFeatures(whereClause:envelope:)`` fetches what
    /// it selects.
    case selection
    /// Nothing ever, unless
    /// ``ServiceFeatureTable/populateFromService(whereClause:envelope:clearCache:outFields:maxFeatures:)``
    /// asks.
    case manualCache
}

/// The settings of ``FeatureRequestMode/onDemand(_:)``.
public struct OnDemandOptions: Sendable, Equatable {
    /// How much larger than the displayed extent the fetched extent is (scaled about its
    /// centre); at least 1. Default 2.
    public var bufferFactor: Double
    /// How long fetched features stay fresh; `nil` for ever.
    public var expirationInterval: Duration?
    /// When the data expire: `true` refetches at once (``ServiceFeatureTable/refreshIfExpired()``,
    /// which a timer calls), `false` on the next ``ServiceFeatureTable/display(_:)``.
    public var autoRefreshOnExpiration: Bool

    /// On-demand settings.
    public init(bufferFactor: Double = 2, expirationInterval: Duration? = nil, autoRefreshOnExpiration: Bool = false) {
        self.bufferFactor = bufferFactor
        self.expirationInterval = expirationInterval
        self.autoRefreshOnExpiration = autoRefreshOnExpiration
    }
}
