import Foundation
import SieveFeatures
import SieveGeometry
import SieveProjection
import SieveJSON

/// The map scale of a view: the denominator `s` of 1:s, from the extent shown, the view's width
/// in pixels and the spatial reference, at 96 pixels per inch (the DPI ArcGIS and the OGC
/// assume for a screen).
///
/// The formula: `s = groundWidth / screenWidth`, where `screenWidth = widthPixels / 96 × 0.0254`
/// metres and `groundWidth = extent.width × metresPerUnit`. For a projected reference
/// `metresPerUnit` is the length of its unit (1 for metres, 0.3048006… for US survey feet: read
/// from PROJ); for a geographic reference (degrees) it is the length of a degree of longitude
/// at the extent's centre latitude, `π/180 × 6,378,137 × cos(latitude)` — the equatorial
/// degree, 111,319.49 m, narrowed toward the poles, as ArcGIS computes the scale of a
/// geographic map.
///
/// ```swift
/// // Web Mercator, 1000 px showing 10 km: 10,000 / (1000 / 96 × 0.0254) ≈ 37,795
/// let s = try MapScale.scale(extent: Envelope(xmin: 0, ymin: 0, xmax: 10_000, ymax: 5_000),
///                            width: 1000, spatialReference: .webMercator)
/// ```
public enum MapScale {
    /// The screen resolution scales assume, in pixels per inch.
    public static let dotsPerInch = 96.0
    /// Metres per inch.
    public static let metresPerInch = 0.0254
    /// The length of a degree on the equator of the WGS 84 ellipsoid, `π/180 × 6,378,137` m.
    public static let metresPerDegree = Double.pi / 180 * 6_378_137

    /// The scale denominator of a view of `extent` (in `spatialReference`) `width` pixels wide.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for an extent without a
    ///   finite, positive width, a width that is not positive, or a spatial reference PROJ does not
    ///   know.
    public static func scale(extent: Envelope, width: Double, spatialReference: SpatialReference) throws(FeatureTableError)
        -> Double
    {
        guard extent.xmin.isFinite, extent.xmax.isFinite, extent.ymin.isFinite, extent.ymax.isFinite,
            extent.xmax > extent.xmin
        else {
            throw FeatureTableError(.invalidQuery, "the map extent must have a finite, positive width")
        }
        guard width.isFinite, width > 0 else {
            throw FeatureTableError(.invalidQuery, "the view width must be positive, not \(formatNumber(width))")
        }
        let unit = try metresPerUnit(spatialReference, latitude: (extent.ymin + extent.ymax) / 2)
        let ground = (extent.xmax - extent.xmin) * unit
        let screen = width / dotsPerInch * metresPerInch
        return ground / screen
    }

    /// How many metres one map unit of `reference` is across, at `latitude` for a geographic
    /// reference (see ``MapScale``).
    static func metresPerUnit(_ reference: SpatialReference, latitude: Double) throws(FeatureTableError) -> Double {
        if reference.latestWkid == 3857 { return 1 }
        let unit: (isAngular: Bool, toSI: Double)
        if reference.isGeographic {
            unit = (true, Double.pi / 180)
        } else {
            do {
                unit = try ProjectionContext.withCurrent { context throws(ProjectionError) in try context.unit(of: reference) }
            } catch {
                throw FeatureTableError(.invalidQuery, "cannot compute the map scale in wkid \(reference.wkid): \(error)")
            }
        }
        guard unit.isAngular else { return unit.toSI }
        let clamped = max(-90, min(90, latitude))
        // Metres per radian of longitude on the equator, times radians per unit, narrowed by cos φ.
        return 6_378_137 * unit.toSI * cos(clamped * .pi / 180)
    }

    /// Whether a layer with scale range `minScale`…`maxScale` (0 = no bound) is visible at
    /// `scale`: zoomed out no further than `minScale` and in no further than `maxScale`, both
    /// inclusive.
    public static func isInRange(_ scale: Double, minScale: Double, maxScale: Double) -> Bool {
        (minScale <= 0 || scale <= minScale) && (maxScale <= 0 || scale >= maxScale)
    }
}
