// The columns store their values in SieveBuffers' append-only buffers; re-exported so that a
// user of the columns can read them without importing it.
@_exported import SieveBuffers
