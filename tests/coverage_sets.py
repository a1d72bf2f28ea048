"""Checks `coverage combine` against Python's own set operators.

Reads the --json parts and the combined result; a part's set is its
source lines (file, line) with `executed` > 0, from the per-line records
of its "files". The expression is evaluated by Python over those sets,
with Python's precedence, and must give exactly the result's executed
lines; a line the result covers lists the traces of the parts that ran
it, and a line it does not lists none.

Usage: coverage_sets.py EXPR RESULT NAME=PART...
Prints {"lines": N} (the result's covered lines) or the differences and
exits 1.
"""

import json
import re
import sys


def lines(doc):
    out = {}
    for f in doc["files"]:
        for ln in f["lines"]:
            out[(f["file"], ln["line"])] = ln
    return out


def main():
    expr, result, *named = sys.argv[1:]
    parts = {}
    for p in named:
        name, path = p.split("=", 1)
        parts[name] = json.load(open(path))
    # Names, set operators and parentheses only: nothing else is evaluated.
    if re.search(r"[^A-Za-z0-9_\s()|&^-]", expr):
        raise SystemExit(f"coverage_sets: unexpected text in {expr!r}")
    sets = {n: {k for k, v in lines(d).items() if v["executed"] > 0} for n, d in parts.items()}
    want = eval(expr, {"__builtins__": {}}, sets)
    got_doc = json.load(open(result))
    got_lines = lines(got_doc)
    got = {k for k, v in got_lines.items() if v["executed"] > 0}
    if want != got:
        print(f"coverage_sets: {expr}: {len(got)} lines, Python says {len(want)}", file=sys.stderr)
        for k in sorted(got - want)[:10]:
            print(f"  only in the result: {k}", file=sys.stderr)
        for k in sorted(want - got)[:10]:
            print(f"  only in Python's:   {k}", file=sys.stderr)
        sys.exit(1)
    # Runs: the result's traces are the parts', in order; a covered line's
    # are those of the parts that ran it.
    traces = [t for n in parts for t in parts[n]["traces"]]
    if got_doc["traces"] != traces:
        raise SystemExit(f"coverage_sets: traces {got_doc['traces']} are not {traces}")
    offset, base = 0, {}
    for n in parts:
        base[n] = offset
        offset += len(parts[n]["traces"])
    for k, v in got_lines.items():
        expected = set()
        if k in want:
            for n, d in parts.items():
                ln = lines(d).get(k)
                if ln and ln["executed"] > 0:
                    expected |= {base[n] + t for t in ln["traces"]}
        if set(v["traces"]) != expected:
            raise SystemExit(f"coverage_sets: line {k} lists runs {v['traces']}, expected {sorted(expected)}")
    print(json.dumps({"lines": len(got)}))


if __name__ == "__main__":
    main()
