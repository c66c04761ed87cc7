import Foundation

/// Independent implementations of two map projections, written from the formulas of
/// J. P. Snyder, *Map Projections — A Working Manual* (USGS Professional Paper 1395, 1987),
/// also given in IOGP's Guidance Note 7-2. They share no code with PROJ and are the oracles the
/// tests compare PROJ's answers to.

/// One foot of the US survey: exactly 1200/3937 metres.
let usSurveyFoot = 1200.0 / 3937.0

/// An ellipsoid by its semi-major axis (metres) and inverse flattening.
struct Ellipsoid {
    var a: Double
    var inverseFlattening: Double

    var e2: Double {
        let f = 1 / inverseFlattening
        return 2 * f - f * f
    }
    var e: Double { e2.squareRoot() }

    static let grs80 = Ellipsoid(a: 6_378_137, inverseFlattening: 298.257222101)
    static let clarke1866 = Ellipsoid(a: 6_378_206.4, inverseFlattening: 294.978_698_213_9)
    static let airy1830 = Ellipsoid(a: 6_377_563.396, inverseFlattening: 299.324_964_6)
}

private func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

/// Lambert Conic Conformal with two standard parallels (Snyder §15, formulas 15-1, 14-15,
/// 15-9, 15-8, 15-7, 14-4, 14-3; EPSG method 9802).
struct LambertConicConformal2SP {
    var ellipsoid: Ellipsoid
    /// Latitude and longitude of the false origin, standard parallels, in degrees.
    var latitudeOfOrigin: Double
    var longitudeOfOrigin: Double
    var standardParallel1: Double
    var standardParallel2: Double
    /// False easting and northing, in metres.
    var falseEasting: Double
    var falseNorthing: Double

    private func m(_ phi: Double) -> Double {
        let s = sin(phi)
        return cos(phi) / (1 - ellipsoid.e2 * s * s).squareRoot()
    }

    private func t(_ phi: Double) -> Double {
        let e = ellipsoid.e, s = sin(phi)
        return tan(.pi / 4 - phi / 2) / pow((1 - e * s) / (1 + e * s), e / 2)
    }

    /// Easting and northing in metres of a longitude and latitude in degrees.
    func forward(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let phi1 = radians(standardParallel1), phi2 = radians(standardParallel2)
        let m1 = m(phi1), m2 = m(phi2)
        let t1 = t(phi1), t2 = t(phi2)
        let n = (log(m1) - log(m2)) / (log(t1) - log(t2))
        let f = m1 / (n * pow(t1, n))
        let rho0 = ellipsoid.a * f * pow(t(radians(latitudeOfOrigin)), n)
        let rho = ellipsoid.a * f * pow(t(radians(latitude)), n)
        let theta = n * radians(longitude - longitudeOfOrigin)
        return (falseEasting + rho * sin(theta), falseNorthing + rho0 - rho * cos(theta))
    }

    /// NAD83 / New York Long Island (ftUS), EPSG:2263 (in metres; divide by
    /// ``usSurveyFoot`` for its unit).
    static let newYorkLongIsland = LambertConicConformal2SP(
        ellipsoid: .grs80, latitudeOfOrigin: 40 + 10 / 60.0, longitudeOfOrigin: -74,
        standardParallel1: 41 + 2 / 60.0, standardParallel2: 40 + 40 / 60.0,
        falseEasting: 300_000, falseNorthing: 0)

    /// NAD27 / Texas South Central, EPSG:32040, the worked example of Guidance Note 7-2.
    static let texasSouthCentral = LambertConicConformal2SP(
        ellipsoid: .clarke1866, latitudeOfOrigin: 27 + 50 / 60.0, longitudeOfOrigin: -99,
        standardParallel1: 28 + 23 / 60.0, standardParallel2: 30 + 17 / 60.0,
        falseEasting: 2_000_000 * usSurveyFoot, falseNorthing: 0)
}

/// Transverse Mercator by Snyder's series (formulas 8-9, 8-10, 3-21, 4-20; the USGS forms of
/// EPSG method 9807). Accurate to well under a millimetre within a few degrees of the central
/// meridian: the first neglected terms are of order A⁷·N, with A = Δλ·cos φ.
struct TransverseMercator {
    var ellipsoid: Ellipsoid
    var latitudeOfOrigin: Double
    var centralMeridian: Double
    var scale: Double
    var falseEasting: Double
    var falseNorthing: Double

    private func meridionalArc(_ phi: Double) -> Double {
        let e2 = ellipsoid.e2, e4 = e2 * e2, e6 = e4 * e2
        return ellipsoid.a
            * ((1 - e2 / 4 - 3 * e4 / 64 - 5 * e6 / 256) * phi
                - (3 * e2 / 8 + 3 * e4 / 32 + 45 * e6 / 1024) * sin(2 * phi)
                + (15 * e4 / 256 + 45 * e6 / 1024) * sin(4 * phi)
                - (35 * e6 / 3072) * sin(6 * phi))
    }

    /// Easting and northing in metres of a longitude and latitude in degrees.
    func forward(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let phi = radians(latitude)
        let e2 = ellipsoid.e2, ep2 = e2 / (1 - e2)
        let s = sin(phi), c = cos(phi)
        let n = ellipsoid.a / (1 - e2 * s * s).squareRoot()
        let t = tan(phi) * tan(phi)
        let cc = ep2 * c * c
        let a = radians(longitude - centralMeridian) * c
        let a2 = a * a, a3 = a2 * a, a4 = a3 * a, a5 = a4 * a, a6 = a5 * a
        let x = scale * n * (a + (1 - t + cc) * a3 / 6 + (5 - 18 * t + t * t + 72 * cc - 58 * ep2) * a5 / 120)
        let y =
            scale
            * (meridionalArc(phi) - meridionalArc(radians(latitudeOfOrigin))
                + n * tan(phi)
                * (a2 / 2 + (5 - t + 9 * cc + 4 * cc * cc) * a4 / 24
                    + (61 - 58 * t + t * t + 600 * cc - 330 * ep2) * a6 / 720))
        return (falseEasting + x, falseNorthing + y)
    }

    /// OSGB 1936 / British National Grid, EPSG:27700, the worked example of Guidance Note 7-2.
    static let britishNationalGrid = TransverseMercator(
        ellipsoid: .airy1830, latitudeOfOrigin: 49, centralMeridian: -2, scale: 0.999_601_271_7,
        falseEasting: 400_000, falseNorthing: -100_000)
}
