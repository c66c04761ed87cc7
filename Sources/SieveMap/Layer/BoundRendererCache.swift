import SieveBase
import SieveFeatures

/// A layer's renderer as last bound to a table, kept between identify calls. Binding can read
/// every row (a percent-of-total sum, the texts of a date-only field) and builds the classifier's
/// look-up of values; identify needs it on every click whose hits a renderer may leave undrawn.
/// One cache serves one renderer (``FeatureLayer`` starts a new one when its renderer is set), so
/// a click checks only that the table is the same, not the renderer's classes.
final class BoundRendererCache: Sendable {
    private let last = Locked<BoundRenderer?>(nil)

    /// `renderer` (the one this cache serves) bound to `table`: the kept binding when it is of
    /// this very table, else a new one, kept in its place.
    /// - Throws: As ``Renderer/bind(to:normalizationTotal:)``.
    func bound(_ renderer: Renderer, to table: FeatureTable) throws(RendererError) -> BoundRenderer {
        if let kept = last.withLock({ $0 }), kept.table.isIdentical(to: table) { return kept }
        let made = try renderer.bind(to: table)
        last.withLock { $0 = made }
        return made
    }
}

extension FeatureLayer {
    /// ``renderer`` bound to `table` (the layer's table as it is now), reusing the binding of
    /// the last call when the table is the same.
    /// - Throws: As ``Renderer/bind(to:normalizationTotal:)``.
    func boundRenderer(to table: FeatureTable) throws(RendererError) -> BoundRenderer {
        try boundRenderers.bound(renderer, to: table)
    }
}
