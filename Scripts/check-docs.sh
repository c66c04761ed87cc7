#!/usr/bin/env bash
# Builds the API documentation of every public module in one `generate-documentation` run, with
# every DocC warning an error (a broken ``symbol link`` or <doc:article> link, an undocumented
# parameter among documented ones, …), as one combined archive in which modules link to one
# another. Then checks, per module, that the archive holds a page for every public symbol of the
# module's symbol graph and that the module's catalog curates every top-level symbol in its
# Topics (Scripts/check-docs.py). Prints the per-module counts; fails naming the module.
#
#     Scripts/check-docs.sh [OUTPUT]      (the archive goes to OUTPUT, default .build/docs-check)
set -euo pipefail
cd "$(dirname "$0")/.."

output=${1:-.build/docs-check}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS

# Every library target reachable from a library product: the umbrella, what it re-exports, the
# three SwiftNIO products and SieveJSON.
modules=$(python3 Scripts/check-docs.py --list-modules)
targets=()
for module in $modules; do
    targets+=(--target "$module")
done

# The plugin merges the modules' archives into OUTPUT, whose folder must exist.
rm -rf "$output"
mkdir -p "$(dirname "$output")"
status=0
# GEOSIEVE_BUILD_FLAGS: the flags of the debug build to reuse (CI's), so that the symbol graphs
# are extracted from it rather than from a build of other settings.
# shellcheck disable=SC2086  # one word per flag
swift package ${GEOSIEVE_BUILD_FLAGS:-} --allow-writing-to-directory "$output" generate-documentation "${targets[@]}" \
    --enable-experimental-combined-documentation --warnings-as-errors --output-path "$output" \
    > "$log" 2>&1 || status=$?

if [[ $status -ne 0 || ! -d "$output/data/documentation" ]]; then
    # The DocC diagnostics, without the build's progress lines.
    grep -vE '^\[[0-9]+/[0-9]+\]|^Building for |^Build of target|^(Finished )?[Ee]xtracting symbol|^Finished building|^Building documentation|swift-distributed-tracing|/CMakeLists.txt$|^$' "$log" || true
    if [[ $status -ne 0 ]]; then
        echo "check-docs: the documentation does not build without warnings (the DocC diagnostics are above)"
    else
        echo "check-docs: no combined archive at $output (see above)"
    fi
    exit 1
fi

python3 Scripts/check-docs.py "$output"
echo "check-docs: $(wc -w <<< "$modules") modules documented without warnings, a page for every public symbol ($((SECONDS - start)) s)"
