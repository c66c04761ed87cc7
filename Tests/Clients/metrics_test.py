#!/usr/bin/env python3
"""`geosieve serve --metrics`: /metrics read by Prometheus's own Python client parser.

Usage: metrics_test.py BASE_URL

Run after the other checks of the same server (Scripts/test-clients.sh runs it last against its
PBF server, which serves 'cities' among its tables): every line parses as the Prometheus text
format 0.0.4; the families GeoSieve documents are there with their types; the request counter
of a route grows by exactly the requests sent to it here; the features served grow by exactly
the features those answers held; a tile asked twice counts one miss or hit each time; and the
table rows equal the count the server answers.
"""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families

from clientlib import fetch

QUERY_ROUTE = "/arcgis/rest/services/{service}/FeatureServer/{layer}/query"
passed = 0


def fail(message):
    print(f"FAIL [metrics] {message}")
    sys.exit(1)


def ok(message):
    global passed
    passed += 1
    print(f"PASS [metrics] {message}")


def scrape(base):
    status, content_type, body = fetch(base + "/metrics")
    if status != 200 or not content_type.startswith("text/plain; version=0.0.4"):
        fail(f"/metrics answered {status} {content_type}")
    families = {family.name: family for family in text_string_to_metric_families(body.decode("utf-8"))}
    return families


def value(families, family, sample_name, **labels):
    found = 0.0
    for sample in families[family].samples if family in families else []:
        if sample.name == sample_name and all(sample.labels.get(k) == v for k, v in labels.items()):
            found += sample.value
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    base = sys.argv[1]
    before = scrape(base)
    requests_before = value(before, "geosieve_http_requests", "geosieve_http_requests_total", route=QUERY_ROUTE, status="200")
    features_before = value(before, "geosieve_features_served", "geosieve_features_served_total", table="cities")
    sent, features = 0, 0
    for count in (7, 11, 1):
        status, _, body = fetch(f"{base}/arcgis/rest/services/cities/FeatureServer/0/query?where=1%3D1&outFields=name&resultRecordCount={count}&f=json")
        sent += 1
        features += len(json.loads(body)["features"])
    status, _, body = fetch(f"{base}/arcgis/rest/services/cities/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")
    sent += 1
    total = json.loads(body)["count"]
    tile = "/ogc/collections/cities/tiles/WebMercatorQuad/1/0/0"
    tiles_before = value(before, "geosieve_tiles_served", "geosieve_tiles_served_total", table="cities")
    for _ in range(2):
        fetch(base + tile)
    after = scrape(base)
    expected_types = {
        "geosieve_http_requests": "counter", "geosieve_http_request_duration_seconds": "histogram",
        "geosieve_features_served": "counter", "geosieve_table_rows": "gauge",
    }
    for name, kind in expected_types.items():
        if name not in after or after[name].type != kind:
            fail(f"{name}: {after.get(name) and after[name].type}, expected {kind}")
    ok(f"/metrics parses with prometheus_client: {len(after)} families, the documented ones with their types")

    requests_after = value(after, "geosieve_http_requests", "geosieve_http_requests_total", route=QUERY_ROUTE, status="200")
    if requests_after - requests_before != sent:
        fail(f"the query route counted {requests_after - requests_before} requests, {sent} were sent")
    histogram = value(after, "geosieve_http_request_duration_seconds", "geosieve_http_request_duration_seconds_count", route=QUERY_ROUTE)
    if histogram != requests_after:
        fail(f"the latency histogram counts {histogram} requests of the query route, the counter {requests_after}")
    ok(f"the query route counted the {sent} requests sent, in the counter and the latency histogram")
    features_after = value(after, "geosieve_features_served", "geosieve_features_served_total", table="cities")
    if features_after - features_before != features:
        fail(f"features served grew by {features_after - features_before}, the answers held {features}")
    ok(f"features served grew by the {features} features the answers held")
    tiles_after = value(after, "geosieve_tiles_served", "geosieve_tiles_served_total", table="cities")
    if tiles_after - tiles_before != 2:
        fail(f"tiles served grew by {tiles_after - tiles_before}, 2 were asked")
    rows = value(after, "geosieve_table_rows", "geosieve_table_rows", table="cities")
    if rows != total:
        fail(f"geosieve_table_rows says {rows} cities, the server counts {total}")
    ok(f"tiles served grew by the 2 asked; the table rows ({int(rows)}) equal the server's count")
    print(f"{passed} metrics checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
