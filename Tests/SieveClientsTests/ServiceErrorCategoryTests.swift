// Needs the RemoteSources trait (on by default).
#if RemoteSources
import SieveClients
import Testing

/// `ServiceError` in the one error model: a service that failed or did not answer is
/// unavailable (exit status 1, HTTP 502 with ArcGIS code 500), the answers that blame the
/// caller keep their meaning.
@Suite struct ServiceErrorCategoryTests {
    static let url = "http://127.0.0.1:1/arcgis/rest/services/x/FeatureServer/0"

    @Test func categoriesByKindAndStatus() {
        #expect(ServiceError(.network, "connection refused", url: Self.url).category == .unavailable)
        #expect(ServiceError(.timeout, "no whole answer in time", url: Self.url).category == .unavailable)
        #expect(ServiceError(.invalidResponse, "not JSON", url: Self.url).category == .unavailable)
        #expect(ServiceError(.httpStatus, "Bad Gateway", url: Self.url, status: 502).category == .unavailable)
        #expect(ServiceError(.serviceError, "Unable to complete operation.", url: Self.url, status: 500).category == .unavailable)
        #expect(ServiceError(.serviceError, "Token Required", url: Self.url, status: 499).category == .unauthorized)
        #expect(ServiceError(.serviceError, "Invalid Token", url: Self.url, status: 498).category == .unauthorized)
        #expect(ServiceError(.httpStatus, "Unauthorized", url: Self.url, status: 401).category == .unauthorized)
        #expect(ServiceError(.httpStatus, "Forbidden", url: Self.url, status: 403).category == .forbidden)
        #expect(ServiceError(.httpStatus, "Not Found", url: Self.url, status: 404).category == .notFound)
        #expect(ServiceError(.invalidURL, "no host", url: "http://").category == .invalidRequest)
        #expect(ServiceError(.responseTooLarge, "over 1000 bytes", url: Self.url).category == .tooLarge)
        #expect(ServiceError(.unsupported, "OGC API collections are read here, not edited", url: Self.url).category == .unsupported)
        #expect(ServiceError(.cancelled, "the request was cancelled", url: Self.url).category == .timedOut)
    }

    @Test func kindsMatchInCatchClauses() {
        let error: any Error = ServiceError(.timeout, "no answer", url: Self.url)
        switch error {
        case ServiceError.Kind.timeout: break
        default: Issue.record("\(error)")
        }
        // The printed text is unchanged.
        #expect("\(ServiceError(.httpStatus, "Not Found", url: Self.url, status: 404))" == "HTTP error 404 from \(Self.url): Not Found")
    }
}
#endif
