#if RemoteSources
import Foundation
import SieveFeatures
import SievePostGIS
import SieveTestSupport
import Testing

/// libpq's `sslmode` and `sslrootcert`, read from URLs and the environment (no server), and
/// against the test server, which `Scripts/postgis-server.sh` starts with TLS and a certificate of
/// a throwaway authority for `localhost` (`GEOSIEVE_POSTGIS_CA`): what is encrypted is asked of
/// PostgreSQL itself (`pg_stat_ssl`), and a certificate of another authority or for another host
/// is refused.
@Suite("PostgreSQL connections over TLS")
struct PostGISTLSTests {
    static let base = "postgresql://u@db.example:5432/gis?table=t"

    @Test func sslModesAreReadAsLibpqReadsThem() throws {
        #expect(try PostGISConnectionOptions(url: Self.base, environment: [:]).sslMode == .prefer)
        for mode in PostGISConnectionOptions.SSLMode.allCases where mode != .verifyCA && mode != .verifyFull {
            #expect(try PostGISConnectionOptions(url: Self.base + "&sslmode=" + mode.rawValue, environment: [:]).sslMode == mode)
        }
        // PGSSLMODE, which the URL overrides.
        #expect(try PostGISConnectionOptions(url: Self.base, environment: ["PGSSLMODE": "require"]).sslMode == .require)
        #expect(try PostGISConnectionOptions(url: Self.base + "&sslmode=disable", environment: ["PGSSLMODE": "require"]).sslMode == .disable)
        // Verification needs a root certificate, from the URL, PGSSLROOTCERT or ~/.postgresql.
        let full = try PostGISConnectionOptions(url: Self.base + "&sslmode=verify-full&sslrootcert=/etc/ca.pem", environment: [:])
        #expect(full.sslMode == .verifyFull)
        #expect(full.sslRootCertificate == "/etc/ca.pem")
        let fromEnvironment = try PostGISConnectionOptions(
            url: Self.base, environment: ["PGSSLMODE": "verify-ca", "PGSSLROOTCERT": "system"])
        #expect(fromEnvironment.sslMode == .verifyCA)
        #expect(fromEnvironment.sslRootCertificate == "system")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-tls-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".postgresql"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try Data("x".utf8).write(to: home.appendingPathComponent(".postgresql/root.crt"))
        let homeRoot = try PostGISConnectionOptions(url: Self.base + "&sslmode=verify-full", environment: ["HOME": home.path])
        #expect(homeRoot.sslRootCertificate == home.path + "/.postgresql/root.crt")
    }

    @Test func badSSLSettingsAreErrorsNamingThem() {
        for (query, fragment) in [
            ("&sslmode=verify-full", "needs a root certificate"), ("&sslmode=allow", "sslmode=allow is not supported"),
            ("&sslmode=on", "sslmode \"on\" is not one of disable, prefer, require, verify-ca, verify-full"),
        ] {
            #expect {
                _ = try PostGISConnectionOptions(url: Self.base + query, environment: [:])
            } throws: { error in
                (error as? PostGISError)?.message.contains(fragment) == true
            }
        }
    }

    /// The test server's URL for `table` with `query` added, and its authority's certificate.
    static func server(_ query: String) throws -> (PostGISConnectionOptions, authority: String)? {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["GEOSIEVE_POSTGIS_URL"], let authority = environment["GEOSIEVE_POSTGIS_CA"] else { return nil }
        return (try PostGISConnectionOptions(url: url + "?table=naturalearth_lowres" + query, environment: [:]), authority)
    }

    static var serverHasTLS: Bool { ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_CA"] != nil }

    @Test(.tags(.postgis), .enabled(if: serverHasTLS, "no PostGIS server with TLS (GEOSIEVE_POSTGIS_CA)"))
    func eachModeEncryptsAsItSays() async throws {
        let countries = try #require(try await PostGISServer.fixture().tables["naturalearth_lowres"])
        let europe = try countries.queryFeatureCount(QueryParameters(whereClause: "continent = 'Europe'"))
        let authority = try #require(ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_CA"])
        for (query, encrypted) in [
            ("&sslmode=disable", false), ("&sslmode=prefer", true), ("&sslmode=require", true),
            ("&sslmode=verify-ca&sslrootcert=\(authority)", true),
        ] {
            let (options, _) = try #require(try Self.server(query))
            try await PostGISFeatureSource.using(options) { source async throws in
                let isEncrypted = try await source.connectionIsEncrypted()
                #expect(isEncrypted == encrypted, "\(query)")
                let count = try await source.queryFeatureCount(QueryParameters(whereClause: "continent = 'Europe'"))
                #expect(count == europe)
            }
        }
        // verify-full: the certificate names localhost.
        var (named, _) = try #require(try Self.server("&sslmode=verify-full&sslrootcert=\(authority)"))
        named.host = "localhost"
        let namedIsEncrypted = try await PostGISFeatureSource.using(named) { source in try await source.connectionIsEncrypted() }
        #expect(namedIsEncrypted)
    }

    @Test(.tags(.postgis), .enabled(if: serverHasTLS, "no PostGIS server with TLS (GEOSIEVE_POSTGIS_CA)"))
    func aCertificateOfAnotherAuthorityIsRefused() async throws {
        _ = try await PostGISServer.fixture()
        let authority = try #require(ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_CA"])
        let other = URL(fileURLWithPath: authority).deletingLastPathComponent().appendingPathComponent("other.crt").path
        for mode in ["verify-ca", "verify-full", "require"] {
            var (options, _) = try #require(try Self.server("&sslmode=\(mode)&sslrootcert=\(other)"))
            options.host = "localhost"
            await #expect(throws: PostGISError.self, "\(mode) with another authority") {
                _ = try await PostGISFeatureSource.open(options)
            }
        }
        // Signed by the right authority, but for localhost, not 127.0.0.1: verify-full refuses it
        // at that address, verify-ca takes it.
        var (wrongHost, _) = try #require(try Self.server("&sslmode=verify-full&sslrootcert=\(authority)"))
        wrongHost.host = "127.0.0.1"
        await #expect(throws: PostGISError.self, "verify-full of a certificate for another host") {
            _ = try await PostGISFeatureSource.open(wrongHost)
        }
        var (caOnly, _) = try #require(try Self.server("&sslmode=verify-ca&sslrootcert=\(authority)"))
        caOnly.host = "127.0.0.1"
        let caOnlyIsEncrypted = try await PostGISFeatureSource.using(caOnly) { source in try await source.connectionIsEncrypted() }
        #expect(caOnlyIsEncrypted)
    }
}
#endif
