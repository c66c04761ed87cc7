// GeoSieve: the umbrella module. `import GeoSieve` brings in every public module of the engine.
@_exported import SieveBase
@_exported import SieveBuffers
@_exported import SieveColumns
@_exported import SieveFeatures
@_exported import SieveGEOS
@_exported import SieveIndex
@_exported import SieveProjection
@_exported import SieveMap
@_exported import SieveCQL
@_exported import SieveSQL
@_exported import SieveFormats
@_exported import SieveEditing
@_exported import SieveArcGISREST
@_exported import SieveGeometry
