// The geometry column stores its arrays in SieveBuffers' append-only buffers; re-exported so
// that a user of the geometry column can read them without importing it.
@_exported import SieveBuffers
