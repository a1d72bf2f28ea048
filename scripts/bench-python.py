#!/usr/bin/env python3
"""Measures the Python package's budgets (docs/performance.md, never
asserted): open + index of a big trace against `tarmac-lens index` on the
same file, `registers_at` latency once indexed, and `table('instructions')`
of a ~100 MB trace into pandas.

    scripts/build-python.sh && .venv/bin/pip install --force-reinstall target/wheels/tarmac_lens-*.whl
    cargo build --release --bin tarmac-lens
    .venv/bin/python3 scripts/bench-python.py [--trace BIG.tarmac] [--cli target/release/tarmac-lens]

The big trace defaults to /tmp/tarmac-lens-page-bench-1024M.tarmac (a 1 GB
tracegen trace); the 100 MB one is its first 100 MB, cut at a line end.
Each figure is the median of --runs runs (index files are neither read
nor written).
"""

import argparse
import os
import pathlib
import random
import statistics
import subprocess
import tempfile
import time

import tarmac_lens

ROOT = pathlib.Path(__file__).resolve().parents[1]


def timed(f, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", default="/tmp/tarmac-lens-page-bench-1024M.tarmac")
    ap.add_argument("--cli", default=str(ROOT / "target/release/tarmac-lens"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--small-mb", type=int, default=100)
    args = ap.parse_args()
    big = pathlib.Path(args.trace)
    size = big.stat().st_size
    print(f"trace: {big} ({size / 1e6:.0f} MB)")

    cli, cli_runs = timed(lambda: subprocess.run(
        [args.cli, "index", str(big), "--force-index", "--no-index", "-q"],
        check=True, stdout=subprocess.DEVNULL), args.runs)
    py, py_runs = timed(lambda: tarmac_lens.open(big, force_index=True, index=False), args.runs)
    print(f"open + index: CLI {cli:.2f} s {[round(x, 2) for x in cli_runs]}, "
          f"Python {py:.2f} s {[round(x, 2) for x in py_runs]}: {100 * (py / cli - 1):+.1f}%")

    t = tarmac_lens.open(big, force_index=True, index=False)
    rng = random.Random(1)
    lines = [rng.randrange(1, t.lines + 1) for _ in range(2000)]
    t.registers_at(lines[0])
    lat = []
    for line in lines:
        t0 = time.perf_counter()
        t.registers_at(line)
        lat.append(time.perf_counter() - t0)
    lat.sort()
    print(f"registers_at: median {1e3 * lat[len(lat) // 2]:.3f} ms, "
          f"p99 {1e3 * lat[int(len(lat) * 0.99)]:.3f} ms, max {1e3 * lat[-1]:.3f} ms ({len(lat)} random lines)")

    with tempfile.TemporaryDirectory() as tmp:
        small = pathlib.Path(tmp) / "small.tarmac"
        with open(big, "rb") as src, open(small, "wb") as dst:
            head = src.read(args.small_mb * 1_000_000)
            dst.write(head[: head.rindex(b"\n") + 1])
        s = tarmac_lens.open(small, index=False)
        print(f"small trace: {small.stat().st_size / 1e6:.0f} MB, {s.instructions} instructions")
        to_pandas, runs = timed(lambda: s.table("instructions").to_pandas(), args.runs)
        print(f"table('instructions').to_pandas(): {to_pandas:.2f} s {[round(x, 2) for x in runs]}")


if __name__ == "__main__":
    main()
