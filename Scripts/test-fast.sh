#!/usr/bin/env bash
# The fast loop: every test but the suites tagged `slow`, `cli`, `network` or `postgis`
# (Tests/SieveTestSupport/Tags.swift), in one `swift test` run — the core, in under 3 minutes of
# test time after a build.
#
#   Scripts/test-fast.sh                      the core
#   Scripts/test-fast.sh --filter SieveSQL    the core of one module (any swift test option)
#   GEOSIEVE_SKIP_TAGS=slow Scripts/test-fast.sh   leave out only the slow suites
#
# The tags are read off the suites' `@Suite(…, .tags(…))` attributes and turned into a --skip
# pattern of their test IDs (Module.Suite), since the toolchain's `swift test` does not filter by
# tag (a Swift Testing with the `tag:` prefix does the same with `--skip tag:slow`). Tag whole
# suites with these four tags, not single tests.
set -euo pipefail
cd "$(dirname "$0")/.."
tags="${GEOSIEVE_SKIP_TAGS:-slow cli network postgis}"
pattern=$(python3 - $tags <<'PY'
import os, re, sys
tags = set(sys.argv[1:])
ids = []
for module in sorted(os.listdir("Tests")):
    folder = os.path.join("Tests", module)
    if not os.path.isdir(folder):
        continue
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".swift"):
            continue
        text = open(os.path.join(folder, name), encoding="utf-8").read()
        # Each suite attribute, up to the type it is attached to.
        for match in re.finditer(r"^@Suite(\((?:[^()]|\([^()]*(?:\([^()]*\))*[^()]*\))*\))?\s*(?:@\w+\s*)*(?:(?:final|public)\s+)*(?:struct|class|enum|actor)\s+(\w+)", text, re.M):
            arguments = match.group(1) or ""
            found = set()
            for listed in re.findall(r"\.tags\(([^)]*)\)", arguments):
                found |= {tag.strip().lstrip(".") for tag in listed.split(",")}
            if found & tags:
                ids.append(f"{module}\\.{match.group(2)}/")
print("^(" + "|".join(ids) + ")" if ids else "^$")
PY
)
exec swift test --disable-xctest --skip "$pattern" "$@"
