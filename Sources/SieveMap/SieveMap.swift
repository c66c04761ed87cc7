// SieveMap: the layer level of GeoSieve. A `FeatureLayer` narrows a feature table with a
// definition expression, hides features with a display filter, keeps a selection and draws with
// a renderer; a `Map` holds ordered layers and identifies across them.
