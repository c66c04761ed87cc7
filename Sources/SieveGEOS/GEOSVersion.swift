import CGEOS

/// The version of the GEOS library GeoSieve was built against, e.g. `3.11.1`.
public let geosVersion: String = GEOS_CAPI_VERSION
