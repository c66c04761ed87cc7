import SieveBase
import SieveFeatures

/// The renderer last bound to a table, kept between identify calls. Binding can read every row
/// (a percent-of-total sum, the texts of a date-only field) and builds the classifier's look-up
/// of values; identify needs it on every click whose hits a renderer may leave undrawn.
final class BoundRendererCache: Sendable {
    private let last = Locked<BoundRenderer?>(nil)

    /// `renderer` bound to `table`: the kept binding when it is of this renderer and this very
    /// table, else a new one, kept in its place.
    /// - Throws: As ``Renderer/bind(to:normalizationTotal:)``.
    func bound(_ renderer: Renderer, to table: FeatureTable) throws(RendererError) -> BoundRenderer {
        if let kept = last.withLock({ $0 }), kept.table.isIdentical(to: table), kept.renderer == renderer { return kept }
        let made = try renderer.bind(to: table)
        last.withLock { $0 = made }
        return made
    }
}

extension FeatureLayer {
    /// ``renderer`` bound to `table` (the layer's table as it is now), reusing the binding of
    /// the last call when the renderer and the table are the same.
    /// - Throws: As ``Renderer/bind(to:normalizationTotal:)``.
    func boundRenderer(to table: FeatureTable) throws(RendererError) -> BoundRenderer {
        try boundRenderers.bound(renderer, to: table)
    }
}
