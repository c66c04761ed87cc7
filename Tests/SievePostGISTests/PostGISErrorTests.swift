// Needs the RemoteSources trait (on by default).
#if RemoteSources
import SievePostGIS
import Testing

/// `PostGISError` in the one error model: a database that cannot be reached is unavailable (a
/// failure of the environment, exit status 1, HTTP 502), while a refused query, wrong options,
/// a missing table and a table GeoSieve cannot read are the caller's (exit status 2).
@Suite struct PostGISErrorTests {
    @Test func categoriesByKind() {
        #expect(PostGISError("cannot connect to PostgreSQL at 127.0.0.1:1").kind == .connection)
        #expect(PostGISError("cannot connect to PostgreSQL at 127.0.0.1:1").category == .unavailable)
        #expect(PostGISError(.queryRefused, "PostgreSQL refused the query: overflow").category == .invalidRequest)
        #expect(PostGISError(.invalidOptions, "the PostgreSQL URL names no table").category == .invalidRequest)
        #expect(PostGISError(.notFound, "no table public.nope in the database gis").category == .notFound)
        #expect(PostGISError(.unsupported, "the geometry column mixes POINT, POLYGON").category == .unsupported)
        // The printed text is the message alone, as before.
        #expect("\(PostGISError(.notFound, "no table public.nope"))" == "no table public.nope")
    }

    @Test func urlErrorsAreInvalidOptions() {
        do {
            // No user in the URL, nor in the environment.
            _ = try PostGISConnectionOptions(url: "postgresql://127.0.0.1/gis?table=t", environment: [:])
            Issue.record("no error")
        } catch PostGISError.Kind.invalidOptions {
        } catch {
            Issue.record("\(error)")
        }
        #expect(ErrorCategory.of(PostGISError(.invalidOptions, "x")).exitStatus == 2)
        #expect(ErrorCategory.of(PostGISError("x")).exitStatus == 1)
    }
}
#endif
