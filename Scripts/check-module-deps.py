#!/usr/bin/env python3
"""Checks that Package.swift declares exactly what each target imports.

For every target of the package (sources and tests), the modules of this package that its files
import must be the ones its `dependencies` name, no more and no fewer, and every product it names
from another package must be imported by at least one of its files. A module that imports one it
does not declare builds only by luck of the build order; one that declares a module it never
imports drags it into every build of its own.

Usage: Scripts/check-module-deps.py   (from anywhere; needs `swift package dump-package`)
Exit status 0 when they agree, 1 with one line per disagreement otherwise.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORT = re.compile(r"^\s*(?:@_exported\s+|@testable\s+|@_spi\(\w+\)\s+|package\s+|public\s+|internal\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")



def target_path(target):
    if target.get("path"):
        return os.path.join(ROOT, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(ROOT, base, target["name"])


def imports_of(path):
    found = set()
    for directory, _, files in os.walk(path):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                for line in handle:
                    match = IMPORT.match(line)
                    if match:
                        found.add(match.group(1))
    return found


def main():
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True)
    package = json.loads(dump.stdout)
    local = {target["name"] for target in package["targets"]}
    problems = []
    for target in package["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        declared_local, declared_products = set(), set()
        for dependency in target["dependencies"]:
            if "byName" in dependency:
                declared_local.add(dependency["byName"][0])
            elif "target" in dependency:
                declared_local.add(dependency["target"][0])
            elif "product" in dependency:
                declared_products.add(dependency["product"][0])
        imported = imports_of(target_path(target))
        imported_local = imported & local
        name = target["name"]
        for module in sorted(imported_local - declared_local - {name}):
            problems.append(f"{name} imports {module} but does not declare it")
        # An executable's test target depends on the executable to build it, without importing it.
        for module in sorted(declared_local - imported_local):
            if target["type"] == "test" and module in local and next(
                t for t in package["targets"] if t["name"] == module
            )["type"] == "executable":
                continue
            problems.append(f"{name} declares {module} but never imports it")
        for product in sorted(declared_products):
            if product not in imported:  # every product used here is a module of the same name
                problems.append(f"{name} declares product {product} but never imports it")
    for line in problems:
        print("module deps: " + line)
    if problems:
        return 1
    print(f"module deps: Package.swift declares exactly what each of {len(package['targets'])} targets imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
