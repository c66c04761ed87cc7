#!/usr/bin/env python3
"""Check the CQL2 corpus against cql2-rs (the `cql2` package on PyPI).

For every pair in corpus.jsonl:
  * cql2.parse_text(text) and cql2.parse_json(json) must both succeed,
  * both trees must pass Expr.validate() (cql2-rs's JSON-schema validation),
  * both trees must give the same canonical JSON (Expr.to_json()).
A pair carrying "cql2_rs_text_rejects" is valid by the CQL2 BNF but known to be
refused by cql2-rs's text parser: the check expects that refusal (and still
requires the JSON side to parse and validate), and reports it if it goes away.

For every entry in invalid.jsonl, cql2-rs must refuse the input, either when
parsing or in validate(). An entry carrying "cql2_rs_accepts": true is invalid
by the standard but documented as accepted by cql2-rs (a leniency): the check
expects acceptance, and reports it if cql2-rs starts refusing it.

Usage: python3 check_corpus.py [-v]     (exit status 0 when everything holds)
"""
import json
import os
import sys
from collections import Counter

import cql2

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = [
    "basic-cql2", "advanced-comparison-operators", "case-insensitive-comparison",
    "accent-insensitive-comparison", "basic-spatial-functions",
    "basic-spatial-functions-plus", "spatial-functions", "temporal-functions",
    "array-functions", "property-property", "functions", "arithmetic",
]


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def accepts(parse, source):
    """Parse and validate; return (expr, None) or (None, 'stage: message')."""
    try:
        expr = parse(source)
    except Exception as exc:  # cql2 raises several exception types
        return None, "parse: " + " ".join(str(exc).split())[:160]
    try:
        expr.validate()
    except Exception as exc:
        return None, "validate: " + " ".join(str(exc).split())[:160]
    return expr, None


def main():
    verbose = "-v" in sys.argv[1:]
    failures, notes = [], []
    pairs, invalid = load("corpus.jsonl"), load("invalid.jsonl")

    ids = [p["id"] for p in pairs] + [e["id"] for e in invalid]
    for dup in sorted(k for k, n in Counter(ids).items() if n > 1):
        failures.append(f"{dup}: duplicate id")

    classes = Counter()
    for p in pairs:
        pid = p["id"]
        if p.get("class") not in CLASSES:
            failures.append(f"{pid}: unknown class {p.get('class')!r}")
        classes[p.get("class")] += 1
        if not p.get("production"):
            failures.append(f"{pid}: no production named")
        jexpr, jerr = accepts(cql2.parse_json, json.dumps(p["json"]))
        if jerr:
            failures.append(f"{pid}: JSON refused ({jerr})")
        texpr, terr = accepts(cql2.parse_text, p["text"])
        if "cql2_rs_text_rejects" in p:
            if terr:
                notes.append(f"{pid}: text refused by cql2-rs as documented ({terr.split(':')[0]})")
                continue
            notes.append(f"{pid}: cql2-rs now accepts this text; the cql2_rs_text_rejects note can go")
        elif terr:
            failures.append(f"{pid}: text refused ({terr})")
        if texpr is None or jexpr is None:
            continue
        tj, jj = texpr.to_json(), jexpr.to_json()
        if tj != jj:
            failures.append(f"{pid}: text and JSON trees differ\n  text -> {json.dumps(tj)}\n  json -> {json.dumps(jj)}")
        elif verbose:
            print(f"ok   {pid}")

    lenient = 0
    for e in invalid:
        eid = e["id"]
        if e.get("encoding") not in ("text", "json") or not e.get("why"):
            failures.append(f"{eid}: needs encoding text|json and a why")
            continue
        parse = cql2.parse_text if e["encoding"] == "text" else cql2.parse_json
        expr, err = accepts(parse, e["input"])
        if e.get("cql2_rs_accepts"):
            lenient += 1
            if err:
                notes.append(f"{eid}: cql2-rs now refuses this input ({err.split(':')[0]}); the leniency note can go")
        elif expr is not None:
            failures.append(f"{eid}: accepted by cql2-rs but not marked as a leniency: {e['input']}")
        elif verbose:
            print(f"ok   {eid} ({err.split(':')[0]})")

    print(f"cql2 {cql2.__version__}: {len(pairs)} pairs, {len(invalid)} invalid inputs "
          f"({lenient} documented cql2-rs leniencies)")
    for c in CLASSES:
        print(f"  {c:32s} {classes.get(c, 0)}")
        if not classes.get(c):
            failures.append(f"class {c} has no pair")
    for n in notes:
        print("note:", n)
    for f in failures:
        print("FAIL:", f)
    print("result:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
