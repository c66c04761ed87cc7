// SieveCQL: OGC Common Query Language 2 (CQL2, OGC 21-065r2), the filter language of OGC API –
// Features Part 3 and STAC, in its text and JSON encodings.
