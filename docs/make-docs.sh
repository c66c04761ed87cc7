#!/usr/bin/env bash
# Builds the API documentation of every public module as one static website: the umbrella
# `GeoSieve` (the front door), each module it re-exports, SieveServer, SieveClients, SievePostGIS
# and SieveJSON, combined so that modules link to one another.
#
#     docs/make-docs.sh [OUTPUT [BASE_PATH]]
#
# OUTPUT is the site's folder (default .build/docs-site). BASE_PATH is the path the site will be
# served under, for a host that serves it below its root (GitHub Pages serves a project's site
# under /REPOSITORY/: pass REPOSITORY); without it the site is served at the root of its host.
#
# A DocC site is rendered by JavaScript from JSON files, so it must be opened through an HTTP
# server, not from the file system:
#
#     docs/make-docs.sh
#     python3 -m http.server 8000 --bind 127.0.0.1 --directory .build/docs-site
#     # then open http://127.0.0.1:8000/ (it leads to http://127.0.0.1:8000/documentation/geosieve)
#
# To preview a site built with a BASE_PATH, serve a folder in which OUTPUT is named BASE_PATH:
#
#     docs/make-docs.sh .build/pages/geosieve geosieve
#     python3 -m http.server 8000 --bind 127.0.0.1 --directory .build/pages
#     # then open http://127.0.0.1:8000/geosieve/
#
# Every module's page list is at /documentation/ (the package's page); /documentation/geosieve
# is the front door. Scripts/check-docs.sh builds the same documentation with every DocC warning
# an error and checks that every public symbol has a page.
set -euo pipefail
cd "$(dirname "$0")/.."

output=${1:-.build/docs-site}
base=${2:-}
base=${base#/}
base=${base%/}

targets=()
for module in $(python3 Scripts/check-docs.py --list-modules); do
    targets+=(--target "$module")
done
hosting=()
if [[ -n "$base" ]]; then
    hosting=(--hosting-base-path "$base")
fi

# The plugin merges the modules' archives into OUTPUT, whose folder must exist.
rm -rf "$output"
mkdir -p "$(dirname "$output")"
swift package --allow-writing-to-directory "$output" generate-documentation "${targets[@]}" \
    --enable-experimental-combined-documentation --transform-for-static-hosting "${hosting[@]}" \
    --output-path "$output"
if [[ ! -d "$output/documentation/geosieve" ]]; then
    echo "make-docs: no site at $output (see above)" >&2
    exit 1
fi

# The site's root leads to the front door: the umbrella module's page. (Every page has an
# index.html of its own; the root's is used for the root only.)
prefix=${base:+/$base}
cat > "$output/index.html" <<EOF
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GeoSieve documentation</title>
<meta http-equiv="refresh" content="0; url=$prefix/documentation/geosieve">
<link rel="canonical" href="$prefix/documentation/geosieve">
</head>
<body><p><a href="$prefix/documentation/geosieve">GeoSieve documentation</a></p></body>
</html>
EOF

if [[ -z "$base" ]]; then
    echo "make-docs: site in $output; to read it, run"
    echo "  python3 -m http.server 8000 --bind 127.0.0.1 --directory $output"
    echo "and open http://127.0.0.1:8000/"
else
    echo "make-docs: site in $output, to be served under /$base/; to preview it, serve a folder"
    echo "in which it is named $base (python3 -m http.server 8000 --bind 127.0.0.1 --directory FOLDER)"
    echo "and open http://127.0.0.1:8000/$base/"
fi
