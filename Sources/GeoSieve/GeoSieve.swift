// GeoSieve: the umbrella module. `import GeoSieve` brings in every public module of the engine.
@_exported import SieveGEOS
@_exported import SieveGeometry
