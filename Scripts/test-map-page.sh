#!/usr/bin/env bash
# The map page of `geosieve serve` (GET /) in headless Chromium: the countries and cities drawn
# from the vector tiles (a screenshot, and the share of the map's pixels the page says it drew),
# and a click on France that lists its attributes through an ArcGIS query (identify).
#
#   Scripts/test-map-page.sh PATH_TO_GEOSIEVE [SCREENSHOT.png]
#
# Needs Debian's chromium (`apt-get install chromium`, which is why CI does not run it); exits 2
# with a notice when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/serve-lib.sh
screenshot=${2:-}
geosieve_argument "$1"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "Chromium is missing: apt-get install chromium" >&2
    exit 2
fi

work=$(mktemp -d)
pid=
cleanup() {
    [ -z "$pid" ] || kill -TERM "$pid" 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$geosieve" serve Tests/Fixtures/naturalearth_lowres.geojson:countries Tests/Fixtures/naturalearth_cities.geojson:cities \
    --port 0 --log-level warning > "$work/serve.out" 2> "$work/serve.log" &
pid=$!
wait_for_serving "$work/serve.out" "$pid" map

# France's interior (2.5° E, 46.5° N) at zoom 2: the click must find France among the countries.
url="$base/?view=10,30,2&click=2.5,46.5"
run_browser() {
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,700 \
        --virtual-time-budget=20000 --user-data-dir="$work/profile" "$@" "$url" 2> "$work/chromium.log"
}
run_browser --dump-dom > "$work/dom.html"
run_browser --screenshot="$work/map.png" > /dev/null
[ -z "$screenshot" ] || cp "$work/map.png" "$screenshot"
python3 - "$work/dom.html" "$work/map.png" <<'EOF_PY'
import json, re, sys, html
dom = open(sys.argv[1], encoding="utf-8").read()
failures = 0
def check(ok, what):
    global failures
    print(("PASS" if ok else "FAIL") + " [map] " + what)
    failures += 0 if ok else 1
drawn = re.search(r'data-drawn="([0-9.]+)"', dom)
check(drawn is not None and float(drawn.group(1)) > 0.10, f"the page drew the layers from the vector tiles ({drawn and drawn.group(1)} of the pixels)")
identified = re.search(r"data-identified='([^']*)'|data-identified=\"([^\"]*)\"", dom)
hits = json.loads(html.unescape(identified.group(1) or identified.group(2))) if identified else []
names = [h["attributes"].get("name") for h in hits if h.get("attributes")]
check("France" in names, f"a click on France lists its attributes through identify ({names})")
check(">France<" in dom, "the attributes are shown beside the map")
png = open(sys.argv[2], "rb").read()
check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, f"Chromium's screenshot ({len(png)} bytes)")
sys.exit(1 if failures else 0)
EOF_PY
stop_serving "$pid" map
pid=
