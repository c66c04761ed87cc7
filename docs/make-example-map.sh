#!/usr/bin/env bash
# Draws docs/world-map.png: the countries fixture with the continents renderer (Antarctica left
# out by a definition expression, countries of a million people or fewer hidden by a display
# filter, the most populous countries selected) and the cities above it, rendered to SVG by
# `geosieve render` and photographed by a headless Chromium (Debian's `chromium` package).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build --product geosieve
.build/debug/geosieve render Tests/Fixtures/naturalearth_lowres.geojson Tests/Fixtures/naturalearth_cities.geojson \
    --map-extent -180,-90,180,90 --size 1200,600 \
    --renderer Examples/continents-renderer.json --renderer Examples/cities-renderer.json \
    --definition-expression "continent <> 'Antarctica'" --display-filter "pop_est > 1000000" \
    --select "pop_est > 1e8" --output "$work/world.svg"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,600 \
    --screenshot="$work/world.png" "file://$work/world.svg"
cp "$work/world.png" docs/world-map.png
echo "wrote docs/world-map.png"
