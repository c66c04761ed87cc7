#!/usr/bin/env python3
"""The documented modules of the package, and the checks of a built documentation archive.

    check-docs.py --list-modules
        Prints the modules to document, one a line: every library target reachable from a library
        product (the products' own targets and what they depend on in this package), so a new
        public module is documented without editing a list.

    check-docs.py ARCHIVE
        Checks, per module, against the symbol graphs the DocC plugin extracted under .build:
        - the archive (a combined archive holding every module) has a page for every public
          symbol of the module's symbol graphs, matched by precise identifier;
        - the catalog's landing page (Sources/M/M.docc/M.md) links every top-level public symbol
          (types, protocols, free functions, global variables, type aliases) in its Topics.
        Prints one line per module and fails naming the module and the symbols at fault.

Run from the package root; Scripts/check-docs.sh and docs/make-docs.sh call it.
"""
import glob
import json
import os
import re
import subprocess
import sys


def package_description():
    text = subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(text)


def documented_modules(package):
    targets = {t["name"]: t for t in package["targets"]}

    def local_dependencies(target):
        names = []
        for dependency in target.get("dependencies", []):
            for kind, value in dependency.items():
                if kind in ("byName", "target") and value and value[0] in targets:
                    names.append(value[0])
        return names

    seen = []
    stack = [
        name
        for product in package["products"]
        if "library" in product["type"]
        for name in product["targets"]
    ]
    while stack:
        name = stack.pop()
        if name in seen or targets[name]["type"] != "regular":
            continue
        seen.append(name)
        stack.extend(local_dependencies(targets[name]))
    return sorted(seen)


def symbol_graph_directory(module):
    """The newest symbol graphs the DocC plugin extracted for `module`."""
    candidates = [
        path
        for path in glob.glob(os.path.join(".build", "*", "extracted-symbols", "*", module))
        if os.path.isfile(os.path.join(path, module + ".symbols.json"))
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda path: os.path.getmtime(os.path.join(path, module + ".symbols.json")))


def public_symbols(directory, module):
    """The public symbols of a module's graphs, and the names of its top-level symbols.

    The symbols are a map from (path, identifier) to the precise identifiers that can stand for
    it: one for a declaration; one per extension block for a type the module extends (DocC makes
    one page of all the blocks that extend a type, named by one of them)."""
    symbols = {}
    top_level = set()
    for path in glob.glob(os.path.join(directory, "*.symbols.json")):
        own_graph = os.path.basename(path) == module + ".symbols.json"
        with open(path, encoding="utf-8") as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            components = symbol["pathComponents"]
            identifier = symbol["identifier"]["precise"]
            if symbol["kind"]["identifier"] == "swift.extension":
                symbols.setdefault(("extension of " + "/".join(components), ""), set()).add(identifier)
            else:
                symbols[("/".join(components), identifier)] = {identifier}
            if own_graph and len(components) == 1:
                top_level.add(components[0])
    return symbols, top_level


def archive_pages(archive, module):
    """(precise identifiers of the symbol pages, number of pages) under a module's folder."""
    identifiers = set()
    count = 0
    root = os.path.join(archive, "data", "documentation", module.lower())
    paths = glob.glob(os.path.join(root, "**", "*.json"), recursive=True)
    paths.append(root + ".json")
    for path in paths:
        if not os.path.isfile(path):
            continue
        count += 1
        with open(path, encoding="utf-8") as file:
            page = json.load(file)
        identifier = page.get("metadata", {}).get("externalID")
        if identifier:
            identifiers.add(identifier)
    return identifiers, count


def curated_names(module):
    """The first path components of the symbol links in the Topics of a module's landing page."""
    path = os.path.join("Sources", module, module + ".docc", module + ".md")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as file:
        text = file.read()
    topics = re.split(r"^## Topics[ \t]*$", text, maxsplit=1, flags=re.MULTILINE)
    if len(topics) < 2:
        return set()
    names = set()
    for link in re.findall(r"``([^`]+)``", topics[1]):
        first = link.split("/")[0]
        names.add(first)
        names.add(re.sub(r"-[^-()]+$", "", first))  # ``Name-swift.struct`` and the like
    return names


def check(archive):
    modules = documented_modules(package_description())
    failures = []
    print(f"{'module':<18}{'public symbols':>16}{'symbol pages':>14}{'all pages':>11}{'top-level':>11}")
    for module in modules:
        directory = symbol_graph_directory(module)
        if directory is None:
            failures.append(f"{module}: no symbol graph under .build/*/extracted-symbols (was it built?)")
            continue
        symbols, top_level = public_symbols(directory, module)
        pages, page_count = archive_pages(archive, module)
        if page_count == 0:
            failures.append(f"{module}: no pages in {archive}/data/documentation/{module.lower()}/")
            continue
        missing = sorted(name for (name, _), identifiers in symbols.items() if not identifiers & pages)
        covered = len(symbols) - len(missing)
        print(f"{module:<18}{len(symbols):>16}{covered:>14}{page_count:>11}{len(top_level):>11}")
        if missing:
            failures.append(
                f"{module}: {len(missing)} of {len(symbols)} public symbols have no page: "
                + ", ".join(missing[:10])
                + (" …" if len(missing) > 10 else "")
            )
        curated = curated_names(module)
        if curated is None:
            failures.append(f"{module}: no catalog landing page Sources/{module}/{module}.docc/{module}.md")
        else:
            uncurated = sorted(top_level - curated)
            if uncurated:
                failures.append(
                    f"{module}: top-level symbols missing from the Topics of "
                    f"Sources/{module}/{module}.docc/{module}.md: " + ", ".join(uncurated)
                )
    for failure in failures:
        print(f"check-docs: {failure}", file=sys.stderr)
    return 1 if failures else 0


def main(arguments):
    if arguments == ["--list-modules"]:
        print("\n".join(documented_modules(package_description())))
        return 0
    if len(arguments) == 1 and not arguments[0].startswith("-"):
        return check(arguments[0])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
