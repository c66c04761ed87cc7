/// A time-aware layer's time: the fields its features' times are in and the extent of their
/// values (ArcGIS `timeInfo`).
public struct LayerTimeInfo: Hashable, Sendable {
    /// The field holding each feature's time (or the start of its interval).
    public var startField: String
    /// The field holding the end of each feature's interval; `nil` for instants.
    public var endField: String?
    /// The earliest and latest times, in epoch milliseconds (UTC); `nil` when no feature has
    /// one or the source does not say.
    public var extent: ClosedRange<Int64>?

    /// A layer time.
    public init(startField: String, endField: String? = nil, extent: ClosedRange<Int64>? = nil) {
        self.startField = startField
        self.endField = endField
        self.extent = extent
    }
}
